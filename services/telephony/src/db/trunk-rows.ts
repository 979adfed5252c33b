import type { SipCodec, SipTrunk } from '@voice/shared/contracts';

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
}

/** The columns a create or an update writes (numbers live in their own table). */
export type TrunkFields = Omit<TrunkRow, 'id' | 'account_id' | 'numbers' | 'created_at' | 'updated_at'>;

/** The API's view of a trunk: `has_password` in place of the password. */
export function toSipTrunk(row: TrunkRow): SipTrunk {
  return {
    id: row.id,
    name: row.name,
    uri: row.uri,
    username: row.username,
    has_password: row.password !== null,
    numbers: row.numbers,
    is_default: row.is_default,
    max_concurrent_calls: row.max_concurrent_calls,
    calls_per_second: row.calls_per_second,
    ring_timeout_seconds: row.ring_timeout_seconds,
    codecs: row.codecs,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}
