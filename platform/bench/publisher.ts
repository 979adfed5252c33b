import { randomUUID } from 'node:crypto';

/** What the runner asks a publisher for: `rate` call status events a second for `durationMs`. */
export interface FanoutCommand {
  type: 'fanout';
  rate: number;
  durationMs: number;
  /** Events go round-robin to these accounts. */
  accounts: string[];
  /** A real call record (from the platform under test) the synthetic events carry. */
  template: Record<string, unknown>;
  /** Tags the events (in `call.metadata.run`) so receivers tell this run from a warm-up. */
  run: string;
  /** NATS subject prefix (the NATS publisher only). */
  prefix?: string;
}

export interface FanoutDone {
  type: 'fanout-done';
  published: number;
  elapsedMs: number;
}

/** Wall-clock milliseconds with sub-millisecond precision, comparable across processes. */
export const wallNow = (): number => performance.timeOrigin + performance.now();

/** Ten calls per account, cycled; a growing sequence keeps every event newer than the last. */
const CALLS_PER_ACCOUNT = 10;

/**
 * Publishes call status events as the call service would (subject
 * `events.call.status.<account>.<call>`, the event envelope, the call record in `data.call`),
 * stamping the publish time in `call.metadata.sent_at` so receivers measure publish-to-receipt.
 */
export async function publishFanout(
  command: FanoutCommand,
  publish: (subject: string, event: unknown) => void,
): Promise<FanoutDone> {
  const calls = command.accounts.map(() => Array.from({ length: CALLS_PER_ACCOUNT }, () => randomUUID()));
  const started = performance.now();
  let published = 0;
  const total = Math.round((command.rate * command.durationMs) / 1000);
  while (published < total) {
    const due = Math.min(total, Math.floor(((performance.now() - started) * command.rate) / 1000) + 1);
    for (; published < due; published++) {
      const a = published % command.accounts.length;
      const account = command.accounts[a]!;
      const callId = calls[a]![Math.floor(published / command.accounts.length) % CALLS_PER_ACCOUNT]!;
      const call: Record<string, unknown> = {
        ...command.template,
        id: callId,
        metadata: { sent_at: wallNow(), run: command.run },
      };
      publish(`events.call.status.${account}.${callId}`, {
        id: randomUUID(),
        type: 'call.status_changed',
        account_id: account,
        occurred_at: new Date().toISOString(),
        data: {
          call_id: callId,
          status: call.status,
          previous_status: null,
          campaign_id: null,
          agent_id: call.agent_id,
          sequence: published + 1,
          call,
        },
      });
    }
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  return { type: 'fanout-done', published, elapsedMs: performance.now() - started };
}
