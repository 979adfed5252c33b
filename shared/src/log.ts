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

export function createLogger(options: { level: string; name: string }): Logger {
  return pino({
    name: options.name,
    level: options.level,
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    // Components add `service` in their child loggers; the process is named once, here.
    base: { process: options.name },
    timestamp: pino.stdTimeFunctions.isoTime,
  });
}
