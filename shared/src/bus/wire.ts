import { AppError, appErrorFromWire, isAppError } from '../errors';
import { BusRemoteError } from './errors';
import { type BusHeaders, type BusMessage, HEADER } from './types';

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

/**
 * A message as one recipient sees it: `data` is parsed from the text it travelled as when first
 * read, so a subscriber that looks only at the subject (the gateway's live hub, for an account
 * nobody is watching) never pays for the parse. Each recipient gets its own copy, as on NATS. A
 * body that is not JSON throws at that first read.
 */
export function receivedMessage(subject: string, text: string, headers: BusHeaders): BusMessage {
  let data: unknown;
  let parsed = false;
  return {
    subject,
    headers,
    get data() {
      if (!parsed) {
        data = decode(text);
        parsed = true;
      }
      return data;
    },
  };
}

export interface EncodedReply {
  body: string;
  errorCode?: string;
}

/** How every success reply with a value begins: decodeReplyJson finds the value's own JSON after it. */
const SUCCESS_PREFIX = '{"ok":true,"data":';

/**
 * A value already written as JSON: sent as this text instead of serialised again. Made only by
 * `validatedReply` (rpc.ts), which checks the value against its contract first.
 */
export class EncodedJson {
  constructor(readonly text: string) {}
}

export function encodeSuccess(data: unknown): EncodedReply {
  // Written out rather than JSON.stringify({ ok, data }), so the value's text is known to sit
  // between SUCCESS_PREFIX and the closing brace (what decodeReply relies on).
  if (data instanceof EncodedJson) return { body: `${SUCCESS_PREFIX}${data.text}}` };
  const text = data === undefined ? undefined : (JSON.stringify(data) as string | undefined);
  if (text === undefined) return { body: encode({ ok: true } satisfies ReplyEnvelope) };
  return { body: `${SUCCESS_PREFIX}${text}}` };
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

/**
 * A reply as the JSON text of its value, never parsed, for a caller that sends it on unchanged (the
 * gateway's REST answers): undefined for a success without a value; an error throws as in
 * decodeReply. Parsing a reply only to serialise it again was a measurable share of the all-in-one
 * process's CPU on GET /v1/agents/{id}, and left garbage behind (docs/performance.md).
 */
export function decodeReplyJson(subject: string, body: string): string | undefined {
  // Every success body with a value is built by encodeSuccess (bus peers are the platform's own
  // services), so the value's text is what lies between the prefix and the closing brace.
  if (body.startsWith(SUCCESS_PREFIX)) return body.slice(SUCCESS_PREFIX.length, -1);
  const data = decodeReply(subject, body);
  return data === undefined ? undefined : JSON.stringify(data);
}

export const ERROR_HEADER = HEADER.errorCode;
