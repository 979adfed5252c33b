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
  '*.authorization',
  '*.key',
  '*.api_key',
  '*.secret',
  '*.token',
  '*.webhook_config.secret',
];

const WARN_LEVEL = 40;

/** Lines are written out at least this often (and whenever 4 KB have gathered). */
export const LOG_FLUSH_INTERVAL_MS = 200;

export function createLogger(options: { level: string; name: string }): Logger {
  // Written in 4 KB pieces rather than one write per line: the gateway logs every request, and a
  // write to a pipe per line was a visible share of its CPU (docs/performance.md). pino flushes what is left when the
  // process exits; a kill -9 can lose at most the last LOG_FLUSH_INTERVAL_MS of lines. Call
  // `flush()` after a line someone may be waiting for (start-up, shutdown).
  const destination = pino.destination({ dest: 1, sync: false, minLength: 4096 });
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
