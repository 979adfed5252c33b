import { type CallContext, requireAccount } from '../bus/rpc';
import type { Bus, Subscription } from '../bus/types';
import { NOTICES, noticeFilter } from '../contracts/notices';
import type { Logger } from '../log';

/** Asks the agent service for what is kept of one agent; throws as it answers (not found: 404). */
export type FetchAgent<T> = (ctx: CallContext, agentId: string) => Promise<T>;

export interface AgentCopiesOptions {
  /** How long a copy is used without asking again: the bound on staleness if a notice is lost. */
  ttlMs?: number;
  /** Most agents kept; the least recently fetched is dropped first. */
  maxEntries?: number;
}

interface Entry<T> {
  copy: T;
  fetchedAt: number;
  epoch: number;
}

const DEFAULT_TTL_MS = 30_000;
const DEFAULT_MAX_ENTRIES = 10_000;

/**
 * Copies of what a service needs of agents (the call service: the agent a call is placed with;
 * the webhook service: where an agent's events go), kept between uses so that each use costs no
 * round trip to the agent service. The agent service announces every change
 * (NOTICES.agentChanged) before it answers the change, so a copy is dropped before any later
 * request could use it. A copy fetched while a change was announced is used for that request
 * only (the reply may predate the change), copies are dropped when the bus lost its connection
 * (notices may have been missed), and none is used longer than `ttlMs`. Failures are not kept.
 */
export class AgentCopies<T> {
  private readonly entries = new Map<string, Entry<T>>();
  /** Fetches in flight per agent, shared by concurrent uses of one agent. */
  private readonly inFlight = new Map<string, Promise<T>>();
  /** Bumped by every notice: a fetch that saw it change may hold an outdated reply. */
  private changes = 0;
  private readonly ttlMs: number;
  private readonly maxEntries: number;

  constructor(
    private readonly bus: Bus,
    private readonly log: Logger,
    private readonly fetchAgent: FetchAgent<T>,
    options: AgentCopiesOptions = {},
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

  /** What is kept of the agent as it is now; AGENT_NOT_FOUND (404) as the agent service says. */
  async get(ctx: CallContext, agentId: string): Promise<T> {
    const key = keyOf(requireAccount(ctx), agentId);
    const epoch = this.epoch();
    const entry = this.entries.get(key);
    if (entry) {
      if (entry.epoch === epoch && Date.now() - entry.fetchedAt < this.ttlMs) return entry.copy;
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

  private async fetch(key: string, agentId: string, ctx: CallContext, epoch: number): Promise<T> {
    const changesBefore = this.changes;
    const fetchedAt = Date.now();
    const copy = await this.fetchAgent(ctx, agentId);
    if (this.changes === changesBefore && this.epoch() === epoch) {
      if (this.entries.size >= this.maxEntries) {
        const oldest = this.entries.keys().next();
        if (!oldest.done) this.entries.delete(oldest.value);
      }
      this.entries.set(key, { copy, fetchedAt, epoch });
    }
    return copy;
  }

  private epoch(): number {
    return this.bus.connectionEpoch?.() ?? 0;
  }
}

function keyOf(accountId: string, agentId: string): string {
  return `${accountId}/${agentId}`;
}
