import type { EncodedJson } from '@voice/shared';
import type { AgentRow } from '../db/agent-rows';

const DEFAULT_CAPACITY = 1000;

/**
 * The JSON answered for each agent, kept per version of its row, so reading an agent that has not
 * changed costs the read only: not the record built, checked against its contract and serialised
 * again (an agent is about 13 KB, most of it its prompt, and serialising it was the largest item
 * of the service's CPU on GET /v1/agents/{id}, BENCHMARKS.md). The row is still read every time,
 * so a change made anywhere (another replica, a migration, SQL by hand) shows on the next read:
 * a version is the row's `xmin` with its `updated_at`. Bounded; least recently used goes first.
 */
export class AgentReplies {
  private readonly entries = new Map<string, { version: string; json: EncodedJson }>();

  constructor(private readonly capacity = DEFAULT_CAPACITY) {}

  /** The JSON of `row`: kept from an earlier read of this same version, or made by `encode` now. */
  of(row: AgentRow, encode: () => EncodedJson): EncodedJson {
    const version = `${row.xmin}:${row.updated_at.getTime()}`;
    const kept = this.entries.get(row.id);
    this.entries.delete(row.id);
    const json = kept?.version === version ? kept.json : encode();
    this.entries.set(row.id, { version, json });
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
    return json;
  }

  get size(): number {
    return this.entries.size;
  }
}
