import { type MsgHdrs, headers as natsHeaders } from '@nats-io/transport-node';
import type { BusHeaders } from '../types';

export const MSG_ID_HEADER = 'Nats-Msg-Id';

export function toNatsHeaders(headers: BusHeaders | undefined): MsgHdrs | undefined {
  if (!headers) return undefined;
  const entries = Object.entries(headers);
  if (entries.length === 0) return undefined;
  const out = natsHeaders();
  for (const [key, value] of entries) out.set(key.toLowerCase(), value);
  return out;
}

/**
 * Server-added `Nats-*` headers (message id, status) are transport details: the in-process
 * bus never shows them, so neither does this one.
 */
export function fromNatsHeaders(headers: MsgHdrs | undefined): BusHeaders {
  const out: BusHeaders = {};
  if (!headers) return out;
  for (const key of headers.keys()) {
    const lower = key.toLowerCase();
    if (lower.startsWith('nats-')) continue;
    out[lower] = headers.get(key);
  }
  return out;
}
