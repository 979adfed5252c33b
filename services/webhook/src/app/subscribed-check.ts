import type { EndpointEventKind, Sql } from '@voice/shared';
import { endpointRepository } from '../db/endpoints';

interface Asked {
  accountId: string;
  kind: EndpointEventKind;
  resolve: (found: boolean) => void;
  reject: (error: unknown) => void;
}

/** Reads which of the asked (account, kind) pairs have a subscribed endpoint, in one statement. */
export type SubscribedRead = (
  pairs: readonly { accountId: string; kind: EndpointEventKind }[],
) => Promise<Set<number>>;

/** Most questions in one statement. */
const MAX_BATCH = 500;

/**
 * Whether an event's account has an endpoint for it, asked for every event the consumers handle:
 * three for each call, nearly always "no". The questions of one event-loop turn, and those asked
 * while a read is in flight, go in one statement, so a busy consumer reads once per batch of
 * events instead of once per event. Each read starts after its questions were asked, so an answer
 * is never older than the event it is for.
 */
export class SubscribedCheck {
  private readonly waiting: Asked[] = [];
  private reading = false;
  private scheduled = false;
  private readonly read: SubscribedRead;

  constructor(sql: Sql, read?: SubscribedRead) {
    this.read = read ?? ((pairs) => endpointRepository.subscribed(sql, pairs));
  }

  /** True when the account has an enabled endpoint subscribed to `kind`. */
  has(accountId: string, kind: EndpointEventKind): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ accountId, kind, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.reading || this.scheduled) return;
    this.scheduled = true;
    // At the end of this turn: the questions of the events delivered together share the read.
    setImmediate(() => {
      this.scheduled = false;
      void this.flush();
    });
  }

  private async flush(): Promise<void> {
    if (this.reading || this.waiting.length === 0) return;
    this.reading = true;
    const batch = this.waiting.splice(0, MAX_BATCH);
    try {
      const found = await this.read(batch);
      for (const [i, asked] of batch.entries()) asked.resolve(found.has(i));
    } catch (error) {
      for (const asked of batch) asked.reject(error);
    } finally {
      this.reading = false;
      if (this.waiting.length > 0) void this.flush();
    }
  }
}
