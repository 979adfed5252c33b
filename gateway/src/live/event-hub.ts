import {
  type Bus,
  type Call,
  type Campaign,
  EVENTS,
  type EventContract,
  eventAccount,
  eventFilter,
  type Logger,
  type Subscription,
} from '@voice/shared';
import type { z } from 'zod';

/** What a live subscriber receives: the record after a change, with its per-entity sequence. */
export interface LiveEvents {
  callStatus: { entityId: string; sequence: number; call: Call };
  campaignProgress: { entityId: string; sequence: number; campaign: Campaign };
}
export type LiveKind = keyof LiveEvents;
type Listener<K extends LiveKind> = (event: LiveEvents[K]) => void;

interface Source<K extends LiveKind> {
  kind: K;
  contract: EventContract;
  read: (data: unknown) => LiveEvents[K];
}
type AnySource = { [K in LiveKind]: Source<K> }[LiveKind];

/** Nothing follows a call's end: a CALL_ENDED without its sequence (an older writer's) is the last. */
const FINAL = Number.MAX_SAFE_INTEGER;

/**
 * Where each kind comes from. A call's status changes are its live status events and, for its
 * end, its CALL_ENDED (the call service announces the end only there; subscribers see each
 * transition once, duplicates dropped by sequence in LiveStream).
 */
const SOURCES: AnySource[] = [
  {
    kind: 'callStatus',
    contract: EVENTS.callStatusChanged,
    read: (data) => {
      const d = data as z.output<typeof EVENTS.callStatusChanged.data>;
      return { entityId: d.call_id, sequence: d.sequence, call: d.call };
    },
  },
  {
    kind: 'callStatus',
    contract: EVENTS.callEnded,
    read: (data) => {
      const d = data as z.output<typeof EVENTS.callEnded.data>;
      return { entityId: d.call.id, sequence: d.sequence ?? FINAL, call: d.call };
    },
  },
  {
    kind: 'campaignProgress',
    contract: EVENTS.campaignProgress,
    read: (data) => {
      const d = data as z.output<typeof EVENTS.campaignProgress.data>;
      return { entityId: d.campaign.id, sequence: d.sequence, campaign: d.campaign };
    },
  },
];

/**
 * The gateway's one bus subscription per source of live events, fanned out in process to its
 * subscribers (GraphQL and tRPC alike). Subscribers are indexed by account, so an event costs work
 * only for the subscribers of its own account, and no subscriber ever sees another account's.
 */
export class EventHub {
  private readonly listeners: { [K in LiveKind]: Map<string, Set<Listener<K>>> } = {
    callStatus: new Map(),
    campaignProgress: new Map(),
  };
  private readonly subscriptions: Subscription[] = [];

  constructor(
    private readonly bus: Bus,
    private readonly log: Logger,
  ) {}

  start(): void {
    for (const source of SOURCES) {
      const kind = source.kind;
      this.subscriptions.push(
        this.bus.subscribe(eventFilter(source.contract), (msg) => {
          // The subject names the account: an event nobody in its account listens to is dropped
          // unparsed (every call's events reach every gateway).
          const accountId = eventAccount(source.contract, msg.subject);
          const listeners = accountId === undefined ? undefined : this.listeners[kind].get(accountId);
          if (!listeners || listeners.size === 0) return;
          const envelope = msg.data as { account_id?: unknown; data?: unknown };
          if (envelope.account_id !== accountId) {
            this.log.warn(
              { subject: msg.subject },
              'live event whose subject names another account: dropped',
            );
            return;
          }
          let event: LiveEvents[typeof kind];
          try {
            event = source.read(envelope.data);
          } catch (error) {
            this.log.warn({ err: error, subject: msg.subject }, 'live event outside its contract: dropped');
            return;
          }
          for (const listener of listeners) (listener as Listener<typeof kind>)(event);
        }),
      );
    }
  }

  /** Calls `listener` with every event of this kind in the account until the returned function is called. */
  listen<K extends LiveKind>(kind: K, accountId: string, listener: Listener<K>): () => void {
    const byAccount = this.listeners[kind] as Map<string, Set<Listener<K>>>;
    const set = byAccount.get(accountId) ?? new Set<Listener<K>>();
    byAccount.set(accountId, set);
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0 && byAccount.get(accountId) === set) byAccount.delete(accountId);
    };
  }

  /** Subscribers currently listening, of every kind (for metrics and tests). */
  get listenerCount(): number {
    let n = 0;
    for (const kind of Object.keys(this.listeners) as LiveKind[])
      for (const set of this.listeners[kind].values()) n += set.size;
    return n;
  }

  async stop(): Promise<void> {
    await Promise.all(this.subscriptions.splice(0).map((s) => s.unsubscribe()));
  }
}
