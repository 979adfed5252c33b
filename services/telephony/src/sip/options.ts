// Settings of the user agent. Timers follow RFC 3261 (17.1.1.1, 17.1.2.1); tests shorten them.

export interface SipTimers {
  /** RTT estimate: first retransmission interval on UDP (default 500 ms). */
  t1Ms: number;
  /** Cap on non-INVITE retransmission intervals (default 4 s). */
  t2Ms: number;
  /** Timers B and F: a request with no final response fails after this (default 64*T1 = 32 s). */
  transactionTimeoutMs: number;
  /** Timer D: how long a failed INVITE keeps answering retransmitted finals with ACK (UDP). */
  timerDMs: number;
}

export function resolveTimers(partial: Partial<SipTimers> = {}): SipTimers {
  const t1Ms = partial.t1Ms ?? 500;
  return {
    t1Ms,
    t2Ms: partial.t2Ms ?? Math.max(4_000, t1Ms),
    transactionTimeoutMs: partial.transactionTimeoutMs ?? 64 * t1Ms,
    timerDMs: partial.timerDMs ?? Math.max(32_000, 64 * t1Ms),
  };
}

/** The part of a pino logger the user agent uses. Messages never carry passwords. */
export interface SipLogger {
  debug(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
}

export const SILENT_LOGGER: SipLogger = { debug() {}, warn() {} };

export interface SipUserAgentOptions {
  /** Local IP address to bind UDP and TCP to (0.0.0.0 for all). */
  bindAddress: string;
  /** Local port for both transports; 0 (default) lets the OS choose. */
  port?: number;
  /** Address (host or host:port) written into Via and Contact, for NAT (SIP_PUBLIC_ADDRESS). */
  publicAddress?: string;
  /** User-Agent header value. */
  userAgent?: string;
  timers?: Partial<SipTimers>;
  logger?: SipLogger;
}
