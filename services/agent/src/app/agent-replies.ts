import type { EncodedJson } from '@voice/shared';
import type { AgentRow, AgentRowVersion } from '../db/agent-rows';

const DEFAULT_CAPACITY = 1000;

/** How AgentReplies reads an agent: its row's version alone, the row, and the row's JSON. */
export interface AgentReads {
  /** The version of the row as stored now; throws as a read does when there is no such agent. */
  version: () => Promise<AgentRowVersion>;
  row: () => Promise<AgentRow>;
  encode: (row: AgentRow) => EncodedJson;
}

/**
 * The JSON answered for each agent, kept per version of its row, so reading an agent that has not
 * changed costs a read of its version only: not the row (mostly the prompt) sent
 * by the database and parsed, nor the record built, checked against its contract and serialised
 * again. Those were the largest items of GET /v1/agents/{id} (BENCHMARKS.md). The version is read
 * every time, so a change made anywhere (another replica, a migration, SQL by hand) shows on the
 * next read: it is the row's `xmin` with its `updated_at`. Bounded; least recently used goes first.
 */
export class AgentReplies {
  private readonly entries = new Map<string, { version: string; json: EncodedJson }>();

  constructor(private readonly capacity = DEFAULT_CAPACITY) {}

  /**
   * The agent's JSON as it is stored now: kept, when the version read now is the kept one (the
   * version read is scoped like any read, so another account's agent is not found), else read.
   */
  async read(agentId: string, reads: AgentReads): Promise<EncodedJson> {
    const kept = this.entries.get(agentId);
    if (kept && versionKey(await reads.version()) === kept.version) {
      this.remember(agentId, kept);
      return kept.json;
    }
    const row = await reads.row();
    return this.of(row, () => reads.encode(row));
  }

  /** The JSON of `row`: kept from an earlier read of this same version, or made by `encode` now. */
  of(row: AgentRow, encode: () => EncodedJson): EncodedJson {
    const version = versionKey(row);
    const kept = this.entries.get(row.id);
    const json = kept?.version === version ? kept.json : encode();
    this.remember(row.id, { version, json });
    return json;
  }

  get size(): number {
    return this.entries.size;
  }

  private remember(agentId: string, entry: { version: string; json: EncodedJson }): void {
    this.entries.delete(agentId);
    this.entries.set(agentId, entry);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
  }
}

function versionKey(version: AgentRowVersion): string {
  return `${version.xmin}:${version.updated_at.getTime()}`;
}
