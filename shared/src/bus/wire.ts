import { AppError, appErrorFromWire, isAppError } from '../errors';
import { BusRemoteError } from './errors';
import { HEADER } from './types';

/**
 * Reply envelope shared by both bus implementations, so the in-process bus serialises exactly
 * as NATS does and a value that would not survive JSON fails in development too.
 */
type ReplyEnvelope = { ok: true; data: unknown } | { ok: false; error: { code: string; detail: unknown } };

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

export function encodeSuccess(data: unknown): EncodedReply {
  return { body: encode({ ok: true, data } satisfies ReplyEnvelope) };
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
  if (envelope.ok) return envelope.data;
  const error = appErrorFromWire(envelope.error);
  throw new BusRemoteError(subject, error.code, error.detail);
}

export const ERROR_HEADER = HEADER.errorCode;
