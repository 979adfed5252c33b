import { z } from 'zod';

const booleanFlag = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

const url = (protocols: RegExp) => z.url({ protocol: protocols });

/** A UDP port for RTP: above the privileged range, digits only, with a message naming the range. */
const rtpPort = (fallback: number) =>
  z
    .string()
    .regex(/^\d{1,5}$/, 'must be a port number from 1024 to 65535')
    .transform(Number)
    .refine((port) => port >= 1024 && port <= 65_535, 'must be a port number from 1024 to 65535')
    .default(fallback);

/** Where the telephony service binds its SIP and RTP sockets: an IP address of this host. */
const bindAddress = z.union([z.ipv4(), z.ipv6()], {
  error: 'must be an IP address of this host (0.0.0.0 for every IPv4 interface, :: for every one)',
});

/** What goes into SIP headers and SDP as our address: an IP address or a DNS name. */
const publicAddress = z
  .string()
  .max(253)
  .refine(
    (v) =>
      z.ipv4().safeParse(v).success ||
      z.ipv6().safeParse(v).success ||
      /^(?!-)[A-Za-z0-9-]{1,63}(?<!-)(\.(?!-)[A-Za-z0-9-]{1,63}(?<!-))*$/.test(v),
    'must be an IP address or a DNS name (no scheme, no port), e.g. 203.0.113.7 or sip.example.com',
  );

/** The whole operator interface (README, "Configuration"), parsed once at start. */
export const ConfigSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65_535).default(3000),
  HOST: z.string().min(1).default('127.0.0.1'),
  /**
   * Serves GET /metrics on HOST:METRICS_PORT in every process (0 = a free port, logged). Unset: the
   * all-in-one process serves it on the API port and a process of one component serves none.
   */
  METRICS_PORT: z.coerce.number().int().min(0).max(65_535).optional(),
  DATABASE_URL: url(/^postgres(ql)?$/).optional(),
  DATA_DIR: z.string().min(1).default('./.data'),
  NATS_URL: z
    .string()
    .regex(
      /^(nats|tls|wss?):\/\/[^\s]+(,(nats|tls|wss?):\/\/[^\s]+)*$/,
      'must be nats://host:port (comma-separated for a cluster)',
    )
    .optional(),
  ADMIN_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  VOICE_DEV_API_KEY: z
    .string()
    .regex(/^[A-Za-z0-9_.-]{20,200}$/, 'must be 20 to 200 characters of A-Z a-z 0-9 _ . -')
    .optional(),
  SIM_TIME_SCALE: z.coerce.number().positive().max(100).default(1),
  /**
   * `on`: a call no SIP trunk carries goes through the simulated carrier; `off` (production): it is
   * refused (NO_SIP_TRUNK, 422), so nothing pretends to have called anyone.
   */
  SIMULATED_CARRIER: z.enum(['on', 'off'], { error: 'must be on or off' }).default('on'),
  /** The UDP ports the telephony service takes RTP/RTCP socket pairs from (both ends included). */
  RTP_PORT_MIN: rtpPort(10_000),
  RTP_PORT_MAX: rtpPort(20_000),
  /** The address SIP and RTP sockets bind to. */
  SIP_BIND_ADDRESS: bindAddress.default('0.0.0.0'),
  /**
   * The SIP port (UDP and TCP) of a telephony instance. 0 (default): a free port chosen at start,
   * named in Via and Contact, which is all an outbound trunk needs and lets replicas share a host;
   * set one (5060) when a firewall or NAT rule must name it.
   */
  SIP_PORT: z.coerce.number().int().min(0).max(65_535).default(0),
  /** The address a trunk must reach us at, when it is not the bound one (NAT): put in Via, Contact and SDP. */
  SIP_PUBLIC_ADDRESS: publicAddress.optional(),
  /**
   * `on`: on a real call the agent holds a conversation (listens, understands, answers). `off`: it
   * speaks its start_flow and end_flow and hangs up, an announcement, with nothing listened to.
   */
  CONVERSATIONS: z.enum(['on', 'off'], { error: 'must be on or off' }).default('on'),
  /**
   * Who decides what the agent says on a real call: `rules` (local, the default: walks the agent
   * type's details, recognises intents) or `llm` (an OpenAI-compatible chat-completions endpoint at
   * LLM_BASE_URL, the agent's ai_model unless LLM_MODEL is set).
   */
  CONVERSATION_BRAIN: z.enum(['rules', 'llm'], { error: 'must be rules or llm' }).default('rules'),
  LLM_BASE_URL: url(/^https?$/).optional(),
  LLM_API_KEY: z.string().min(1).max(500).optional(),
  LLM_MODEL: z.string().min(1).max(100).optional(),
  /** Longest wait for a model's first token before the agent asks the callee to repeat. */
  LLM_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(4000),
  /** Speech synthesis: `local` (espeak-ng and flite) or `openai` (an OpenAI-compatible /audio/speech). */
  TTS_ENGINE: z.enum(['local', 'openai'], { error: 'must be local or openai' }).default('local'),
  /** Speech recognition: `local` (pocketsphinx, English) or `openai` (an OpenAI-compatible /audio/transcriptions). */
  STT_ENGINE: z.enum(['local', 'openai'], { error: 'must be local or openai' }).default('local'),
  /** Where the `openai` speech engines are (default LLM_BASE_URL), their key (default LLM_API_KEY) and models. */
  SPEECH_BASE_URL: url(/^https?$/).optional(),
  SPEECH_API_KEY: z.string().min(1).max(500).optional(),
  TTS_MODEL: z.string().min(1).max(100).default('tts-1'),
  STT_MODEL: z.string().min(1).max(100).default('whisper-1'),
  /** The callee saying nothing this long after the agent spoke: a reprompt, then a polite end. */
  CONVERSATION_SILENCE_MS: z.coerce.number().int().min(1000).max(120_000).default(7000),
  /**
   * How long the callee must be quiet for their turn to be over: shorter answers faster, longer
   * cuts fewer people off while they think. Pauses between sentences are shorter than the default.
   */
  CONVERSATION_END_OF_UTTERANCE_MS: z.coerce.number().int().min(200).max(3000).default(600),
  /** Answering-machine detection before the agent speaks (`off`: every answer is a person). */
  CONVERSATION_AMD: z.enum(['on', 'off'], { error: 'must be on or off' }).default('on'),
  WEBHOOK_RETRY_BASE_MS: z.coerce.number().int().min(1).max(3_600_000).default(5000),
  /** Unset: false in production, true in the embedded default (decided by the composition root). */
  WEBHOOK_ALLOW_PRIVATE: booleanFlag.optional(),
  /** How long a call service instance's claim on a live call lasts without renewal (takeover delay). */
  CALL_LEASE_SECONDS: z.coerce.number().int().min(1).max(3600).default(30),
  /** Grace after a call's longest plausible run before the reaper ends it as failed (timeout). */
  CALL_STUCK_GRACE_MS: z.coerce.number().int().min(0).max(86_400_000).default(60_000),
  /**
   * Longest a call over a SIP trunk may last, in seconds from dialing (ringing included), before the
   * reaper ends it as failed (timeout) and hangs it up. Real calls run in wall time: SIM_TIME_SCALE
   * does not apply.
   */
  SIP_MAX_CALL_SECONDS: z.coerce.number().int().min(10).max(86_400).default(7200),
  /**
   * Calls each call service instance hands to the carrier per second (a carrier trunk's CPS).
   * Accepted calls wait, in order, in `initializing` until their turn.
   */
  CALL_DIALS_PER_SECOND: z.coerce.number().int().min(1).max(10_000).default(100),
  /**
   * How far (percent) the V8 heap may grow past what the last full collection kept before the next
   * one; 0 leaves V8's own policy (up to 4x). Bounds what a burst of short-lived data costs in RSS.
   * Unset: 30 in a process running every component (`all`), V8's own in a process of one component
   * (decided by the composition root).
   */
  HEAP_GROWTH_PERCENT: z.coerce.number().int().min(0).max(400).optional(),
  /**
   * Key that signs recording links; every gateway and webhook instance needs the same one.
   * Unset in the embedded default: generated once and kept in DATA_DIR.
   */
  RECORDING_URL_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  /** Where clients reach the gateway, for absolute links (recordings); default: the listen address. */
  PUBLIC_BASE_URL: z.url({ protocol: /^https?$/ }).optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  BUS_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(50).max(120_000).default(5000),
  /** Prefix for every bus subject and stream; isolates tenants sharing one NATS (and test runs). */
  BUS_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_-]*$/)
    .default(''),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(100).default(10),
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(15_000),
  /**
   * How long a client may take to send a request's headers (a connection that sends nothing counts
   * from when it opened), and the whole request with its body: past either it gets a 408 and is
   * closed. Bounds what a client trickling bytes (slowloris) holds. The body limit is 16 MiB: the
   * default request time lets it arrive at about 280 KB/s.
   */
  HTTP_HEADERS_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(10_000),
  HTTP_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(100).max(3_600_000).default(60_000),
  /** How long an idle keep-alive connection stays open; above the 60 s idle timeout of common load balancers. */
  HTTP_KEEP_ALIVE_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(72_000),
  /**
   * Open connections one client address (the socket's, as X-Forwarded-For is unknown before the
   * headers) may hold; past it a new one gets a 429 and is closed. 0: no cap. Unset: 512, or no cap
   * with TRUST_PROXY set, where every connection comes from the proxy (see maxConnectionsPerIp).
   */
  MAX_CONNECTIONS_PER_IP: z.coerce.number().int().min(0).max(1_000_000).optional(),
  /** REST writes (POST, PUT, PATCH, DELETE) one account may have in the gateway at once; 0: no limit. */
  ACCOUNT_WRITES_IN_FLIGHT: z.coerce.number().int().min(0).max(10_000).default(8),
  /**
   * The same while another account has written within the last 2 s: each account's share when
   * they compete (at least 1, at most ACCOUNT_WRITES_IN_FLIGHT).
   */
  ACCOUNT_WRITES_SHARED: z.coerce.number().int().min(1).max(10_000).default(2),
  /**
   * Which proxies may set X-Forwarded-For: `false`, a hop count (`1` behind one load balancer),
   * or comma-separated addresses/CIDRs. `true` (trust everyone) is refused: any client could then
   * pick its own address and its own rate-limit budget.
   */
  TRUST_PROXY: z
    .string()
    .default('false')
    .transform((value, ctx): false | number | string[] => {
      const v = value.trim();
      if (v === 'false' || v === '0' || v === '') return false;
      if (/^\d{1,2}$/.test(v)) return Number(v);
      const list = v.split(',').map((item) => item.trim());
      if (v !== 'true' && list.every((item) => /^[0-9a-fA-F:.]+(\/\d{1,3})?$/.test(item))) return list;
      ctx.addIssue({
        code: 'custom',
        message: 'must be false, a hop count (e.g. 1) or proxy addresses/CIDRs; true would trust any client',
      });
      return z.NEVER;
    }),
});

export type Config = z.infer<typeof ConfigSchema>;

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** Parses the environment; every bad variable is named in the thrown ConfigError. Empty = unset. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const present = Object.fromEntries(
    Object.keys(ConfigSchema.shape)
      .map((key) => [key, env[key]])
      .filter(([, value]) => value !== undefined && value !== ''),
  );
  const result = ConfigSchema.safeParse(present);
  if (!result.success) {
    throw new ConfigError(
      result.error.issues.map((issue) => `${issue.path.join('.') || '(environment)'}: ${issue.message}`),
    );
  }
  const config = result.data;
  if (config.HTTP_HEADERS_TIMEOUT_MS > config.HTTP_REQUEST_TIMEOUT_MS) {
    throw new ConfigError([
      `HTTP_HEADERS_TIMEOUT_MS: must not exceed HTTP_REQUEST_TIMEOUT_MS (${config.HTTP_REQUEST_TIMEOUT_MS})`,
    ]);
  }
  // A call takes an even RTP port and the odd RTCP port above it: the range must hold one such pair.
  const firstEven = config.RTP_PORT_MIN + (config.RTP_PORT_MIN % 2);
  if (firstEven + 1 > config.RTP_PORT_MAX) {
    throw new ConfigError([
      `RTP_PORT_MAX: the range ${config.RTP_PORT_MIN}..${config.RTP_PORT_MAX} must hold an even RTP port and the ` +
        'RTCP port above it (e.g. 10000..20000)',
    ]);
  }
  const hosted = [
    config.CONVERSATION_BRAIN === 'llm' && !config.LLM_BASE_URL
      ? 'CONVERSATION_BRAIN: llm needs LLM_BASE_URL'
      : '',
    ...(['TTS_ENGINE', 'STT_ENGINE'] as const).map((key) =>
      config[key] === 'openai' && !config.SPEECH_BASE_URL && !config.LLM_BASE_URL
        ? `${key}: openai needs SPEECH_BASE_URL (or LLM_BASE_URL)`
        : '',
    ),
  ].filter(Boolean);
  if (hosted.length > 0) throw new ConfigError(hosted);
  return config;
}

/** The MAX_CONNECTIONS_PER_IP default without a proxy in front. */
export const DEFAULT_MAX_CONNECTIONS_PER_IP = 512;

/**
 * MAX_CONNECTIONS_PER_IP as it applies (0: no cap). Unset behind a trusted proxy: no cap, since
 * every connection then comes from the proxy's address and the proxy limits its own clients.
 */
export function maxConnectionsPerIp(config: Config): number {
  return config.MAX_CONNECTIONS_PER_IP ?? (config.TRUST_PROXY === false ? DEFAULT_MAX_CONNECTIONS_PER_IP : 0);
}

/** The gateway's HTTP server limits, from the configuration. */
export function httpLimits(config: Config) {
  return {
    headersTimeoutMs: config.HTTP_HEADERS_TIMEOUT_MS,
    requestTimeoutMs: config.HTTP_REQUEST_TIMEOUT_MS,
    keepAliveTimeoutMs: config.HTTP_KEEP_ALIVE_TIMEOUT_MS,
    maxConnectionsPerAddress: maxConnectionsPerIp(config),
    accountWritesInFlight: config.ACCOUNT_WRITES_IN_FLIGHT,
    accountWritesShared: config.ACCOUNT_WRITES_SHARED,
  };
}

/** True when no external infrastructure is configured: the one-process embedded default. */
export function isEmbedded(config: Config): boolean {
  return !config.NATS_URL && !config.DATABASE_URL;
}
