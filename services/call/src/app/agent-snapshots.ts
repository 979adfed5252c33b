import {
  AGENT,
  type AgentSnapshot,
  type Bus,
  type CallContext,
  callRpc,
  type Logger,
  NOTICES,
  noticeFilter,
  requireAccount,
  type Subscription,
} from '@voice/shared';

export interface AgentSnapshotsOptions {
  /** How long a copy is used without asking again: the bound on staleness if a notice is lost. */
  ttlMs?: number;
  /** Most agents kept; the least recently fetched is dropped first. */
  maxEntries?: number;
}

interface Entry {
  snapshot: AgentSnapshot;
  fetchedAt: number;
  epoch: number;
}

const DEFAULT_TTL_MS = 30_000;
const DEFAULT_MAX_ENTRIES = 10_000;

/**
 * The agent copies calls are placed with, kept between calls so that placing one costs no round
 * trip to the agent service. The agent service announces every change (NOTICES.agentChanged)
 * before it answers the change, so a copy is dropped before any later call could use it. A copy
 * fetched while a change was announced is used for that call only (the reply may predate the
 * change), copies are dropped when the bus lost its connection (notices may have been missed),
 * and none is used longer than `ttlMs`.
 */
export class AgentSnapshots {
  private readonly entries = new Map<string, Entry>();
  /** Fetches in flight per agent, shared by concurrent calls of one agent. */
  private readonly inFlight = new Map<string, Promise<AgentSnapshot>>();
  /** Bumped by every notice: a fetch that saw it change may hold an outdated reply. */
  private changes = 0;
  private readonly ttlMs: number;
  private readonly maxEntries: number;

  constructor(
    private readonly bus: Bus,
    private readonly log: Logger,
    options: AgentSnapshotsOptions = {},
  ) {
    this.ttlMs = options.ttlMs ?? DEFAULT_TTL_MS;
    this.maxEntries = options.maxEntries ?? DEFAULT_MAX_ENTRIES;
  }

  /** Listens for agent changes (every instance hears every notice: no queue group). */
  listen(): Subscription {
    return this.bus.subscribe(noticeFilter(NOTICES.agentChanged), (msg) => {
      this.changes++;
      const parsed = NOTICES.agentChanged.data.safeParse(msg.data);
      const accountId = msg.subject.split('.').at(-2);
      if (!parsed.success || !accountId) {
        // Unreadable: drop every copy rather than risk keeping the one it was about.
        this.log.warn({ subject: msg.subject }, 'unreadable agent notice; dropping every agent copy');
        this.entries.clear();
        this.inFlight.clear();
        return;
      }
      const key = keyOf(accountId, parsed.data.agent_id);
      this.entries.delete(key);
      // A fetch already under way may answer with the agent as it was: later calls must not join it.
      this.inFlight.delete(key);
    });
  }

  /** The agent as a call placed now must use; AGENT_NOT_FOUND (404) as the agent service says. */
  async get(ctx: CallContext, agentId: string): Promise<AgentSnapshot> {
    const key = keyOf(requireAccount(ctx), agentId);
    const epoch = this.epoch();
    const entry = this.entries.get(key);
    if (entry) {
      if (entry.epoch === epoch && Date.now() - entry.fetchedAt < this.ttlMs) return entry.snapshot;
      this.entries.delete(key);
    }
    const pending = this.inFlight.get(key);
    if (pending) return pending;
    const fetching = this.fetch(key, agentId, ctx, epoch).finally(() => {
      if (this.inFlight.get(key) === fetching) this.inFlight.delete(key);
    });
    this.inFlight.set(key, fetching);
    return fetching;
  }

  private async fetch(key: string, agentId: string, ctx: CallContext, epoch: number): Promise<AgentSnapshot> {
    const changesBefore = this.changes;
    const fetchedAt = Date.now();
    const snapshot = await callRpc(this.bus, AGENT.snapshot, { agent_id: agentId }, ctx);
    if (this.changes === changesBefore && this.epoch() === epoch) {
      if (this.entries.size >= this.maxEntries) {
        const oldest = this.entries.keys().next();
        if (!oldest.done) this.entries.delete(oldest.value);
      }
      this.entries.set(key, { snapshot, fetchedAt, epoch });
    }
    return snapshot;
  }

  private epoch(): number {
    return this.bus.connectionEpoch?.() ?? 0;
  }
}

function keyOf(accountId: string, agentId: string): string {
  return `${accountId}/${agentId}`;
}
