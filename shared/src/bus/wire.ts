import { AppError, appErrorFromWire, isAppError } from '../errors';
import { BusRemoteError } from './errors';
import { HEADER } from './types';

/**
 * Reply envelope shared by both bus implementations, so the in-process bus serialises exactly
 * as NATS does and a value that would not survive JSON fails in development too.
 */
type ReplyEnvelope = { ok: true; data?: unknown } | { ok: false; error: { code: string; detail: unknown } };

export function encode(value: unknown): string {
  return JSON.stringify(value ?? null);
}

export function decode(text: string): unknown {
  return text.length === 0 ? null : JSON.parse(text);
}

export interface EncodedReply {
  body: string;
  errorCode?: string;
}

/** How every success reply with a value begins: decodeReply finds the value's own JSON after it. */
const SUCCESS_PREFIX = '{"ok":true,"data":';

/**
 * The JSON text each object decoded from a success reply was parsed from. A caller that passes a
 * reply on unchanged (the gateway's answer to a read) sends this text instead of serialising the
 * object again: for a reply of a few KB that was a measurable share of the gateway (BENCHMARKS.md).
 */
const replyText = new WeakMap<object, string>();
/**
 * Larger replies (export chunks, pages of long calls) are never sent on unchanged, and keeping
 * their text alive beside the parsed value doubled what each one held: the gateway's RSS during
 * a 100,000-call export grew by 150 MB instead of 18 MB.
 */
const REPLY_TEXT_MAX_CHARS = 64 * 1024;

export function encodeSuccess(data: unknown): EncodedReply {
  // Written out rather than JSON.stringify({ ok, data }), so the value's text is known to sit
  // between SUCCESS_PREFIX and the closing brace (what decodeReply relies on).
  const text = data === undefined ? undefined : (JSON.stringify(data) as string | undefined);
  if (text === undefined) return { body: encode({ ok: true } satisfies ReplyEnvelope) };
  return { body: `${SUCCESS_PREFIX}${text}}` };
}

/**
 * The JSON text `value` was decoded from, if it is an object or array a bus reply carried, for a
 * caller that sends it on unchanged; undefined otherwise. Only for a reply nobody has modified.
 */
export function replyJson(value: unknown): string | undefined {
  return value !== null && typeof value === 'object' ? replyText.get(value) : undefined;
}

/** Only catalogue errors cross the wire; anything else is INTERNAL with no internals. */
export function encodeFailure(error: unknown): EncodedReply {
  const appError = isAppError(error) ? error : new AppError('INTERNAL');
  const envelope: ReplyEnvelope = { ok: false, error: { code: appError.code, detail: appError.detail } };
  return { body: encode(envelope), errorCode: appError.code };
}

export function decodeReply(subject: string, body: string): unknown {
  const envelope = decode(body) as ReplyEnvelope | null;
  if (!envelope || typeof envelope !== 'object' || !('ok' in envelope)) {
    throw new AppError('INTERNAL', 'Malformed reply from a backing service');
  }
  if (envelope.ok) {
    const { data } = envelope;
    // Every success body is built by encodeSuccess (bus peers are the platform's own services).
    if (
      data !== null &&
      typeof data === 'object' &&
      body.length <= REPLY_TEXT_MAX_CHARS &&
      body.startsWith(SUCCESS_PREFIX)
    ) {
      replyText.set(data, body.slice(SUCCESS_PREFIX.length, -1));
    }
    return data;
  }
  const error = appErrorFromWire(envelope.error);
  throw new BusRemoteError(subject, error.code, error.detail);
}

export const ERROR_HEADER = HEADER.errorCode;
