import type { SipCodec, SipTrunk, SipTrunkHealth } from '@voice/shared/contracts';

/** A row of telephony.trunks with its numbers, as reads select it. */
export interface TrunkRow {
  id: string;
  account_id: string;
  name: string;
  uri: string;
  username: string | null;
  /** For digest authentication only: never returned over the bus, never logged. */
  password: string | null;
  is_default: boolean;
  max_concurrent_calls: number | null;
  calls_per_second: number | null;
  ring_timeout_seconds: number;
  codecs: SipCodec[];
  numbers: string[];
  created_at: Date;
  updated_at: Date;
  /** The latest keep-alive; all null before the first. */
  health_ok: boolean | null;
  health_checked_at: Date | null;
  health_latency_ms: number | null;
  health_sip_code: number | null;
  health_error: string | null;
}

/** A trunk as a list reads it: what the API shows, the password only as whether there is one. */
export type TrunkListRow = Omit<TrunkRow, 'account_id' | 'password'> & { has_password: boolean };

/** The columns a create or an update writes (numbers live in their own table). */
export type TrunkFields = Omit<
  TrunkRow,
  'id' | 'account_id' | 'numbers' | 'created_at' | 'updated_at' | `health_${string}`
>;

function healthOf(row: TrunkRow | TrunkListRow): SipTrunkHealth {
  return {
    status: row.health_ok === null ? 'unknown' : row.health_ok ? 'reachable' : 'unreachable',
    checked_at: row.health_checked_at?.toISOString() ?? null,
    latency_ms: row.health_latency_ms,
    sip_code: row.health_sip_code,
    detail: row.health_ok === false ? (row.health_error ?? 'no answer') : null,
  };
}

/** The API's view of a trunk: `has_password` in place of the password. */
export function toSipTrunk(row: TrunkRow | TrunkListRow): SipTrunk {
  return {
    id: row.id,
    name: row.name,
    uri: row.uri,
    username: row.username,
    has_password: 'has_password' in row ? row.has_password : row.password !== null,
    numbers: row.numbers,
    is_default: row.is_default,
    max_concurrent_calls: row.max_concurrent_calls,
    calls_per_second: row.calls_per_second,
    ring_timeout_seconds: row.ring_timeout_seconds,
    codecs: row.codecs,
    health: healthOf(row),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}
