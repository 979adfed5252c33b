import { type Logger as PinoLogger, pino } from 'pino';

export type Logger = PinoLogger;

/**
 * Paths never written to a log line: credentials, keys, webhook secrets. pino censors them
 * wherever they appear at these depths.
 */
export const REDACT_PATHS = [
  'authorization',
  'headers.authorization',
  'req.headers.authorization',
  'req.headers.cookie',
  'key',
  'api_key',
  'secret',
  'token',
  'password',
  '*.authorization',
  '*.key',
  '*.api_key',
  '*.secret',
  '*.token',
  '*.password',
  '*.changes.password',
  '*.webhook_config.secret',
];

const WARN_LEVEL = 40;

/** Lines are written out at least this often (and whenever 4 KB have gathered). */
export const LOG_FLUSH_INTERVAL_MS = 200;

/**
 * Once stdout has refused every write for this long (a pipe its reader stopped reading), the
 * lines waiting are given up rather than retried for ever: a process must be able to exit.
 */
export const LOG_STALL_LIMIT_MS = 2_000;
/** Lines waiting for a stalled stdout beyond this many bytes are dropped (memory stays bounded). */
export const LOG_BUFFER_LIMIT_BYTES = 16 * 1024 * 1024;

/**
 * sonic-boom asks before each retry of a refused (EAGAIN) write. Refusals closer together than a
 * second are one stall; a stall longer than LOG_STALL_LIMIT_MS is abandoned. Its synchronous flush
 * at exit asks the same, so that flush cannot hang the exit either.
 */
function stallGuard(): () => boolean {
  let stalledSince = 0;
  let lastRefusal = 0;
  return () => {
    const now = performance.now();
    if (now - lastRefusal > 1_000) stalledSince = now;
    lastRefusal = now;
    return now - stalledSince < LOG_STALL_LIMIT_MS;
  };
}

export function createLogger(options: { level: string; name: string }): Logger {
  // Written in 4 KB pieces rather than one write per line: the gateway logs every request, and a
  // write to a pipe per line was a visible share of its CPU (docs/performance.md). pino flushes what is left when the
  // process exits; a kill -9 can lose at most the last LOG_FLUSH_INTERVAL_MS of lines. Call
  // `flush()` after a line someone may be waiting for (start-up, shutdown).
  const destination = pino.destination({
    dest: 1,
    sync: false,
    minLength: 4096,
    maxLength: LOG_BUFFER_LIMIT_BYTES,
    retryEAGAIN: stallGuard(),
  });
  // A write abandoned by the guard is an 'error' event: unheard, it would crash the process. The
  // lines stay queued and are tried again with the next write.
  destination.on('error', () => {});
  // At exit (pino's hook) a stdout that stays blocked makes flushSync throw once the guard gives up.
  const flushSync = destination.flushSync.bind(destination);
  destination.flushSync = () => {
    try {
      flushSync();
    } catch {
      // Nothing more can be written: exit without the last lines rather than not at all.
    }
  };
  const flush = (): boolean => {
    try {
      destination.flush();
      return true;
    } catch {
      // Closed (the process is ending, or its stdout went away): nothing more to write.
      return false;
    }
  };
  const flushing = setInterval(() => {
    if (!flush()) clearInterval(flushing);
  }, LOG_FLUSH_INTERVAL_MS);
  flushing.unref();
  return pino(
    {
      name: options.name,
      level: options.level,
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      // Components add `service` in their child loggers; the process is named once, here.
      base: { process: options.name },
      timestamp: pino.stdTimeFunctions.isoTime,
      hooks: {
        // Warnings and errors are written out at once: they are what an operator is waiting for.
        logMethod(args, method, level) {
          method.apply(this, args);
          if (level >= WARN_LEVEL) flush();
        },
      },
    },
    destination,
  );
}
