import { AppError, type Logger, type Sql, withDeadline } from '@voice/shared';
import { listenForRevocations, type RevocationFeed } from '../rate-limit/revocations';

/** A check of open connections' keys that failed (the database did not answer) is tried again after this. */
const RECHECK_RETRY_MS = 5000;
/** One check statement must not wait on a stalled database forever. */
const CHECK_DEADLINE_MS = 5000;
/** Keys per check statement. */
const CHECK_BATCH = 1000;

/** What a connection of a revoked (or deleted) key is refused and ended with, on every surface. */
export function revokedKeyError(): AppError {
  return new AppError('UNAUTHORIZED', 'This API key has been revoked');
}

/** One long-lived connection (a graphql-ws socket, a tRPC SSE stream) opened with an API key. */
export interface KeySession {
  readonly keyId: string;
  /** True once its key was found revoked or deleted: the connection has been told to end. */
  readonly revoked: boolean;
  /** The connection ended: stop watching it (idempotent). */
  close(): void;
}

interface Entry extends KeySession {
  revoked: boolean;
  readonly onRevoked: () => void;
}

/**
 * The gateway's long-lived connections by the API key that opened them, so a revocation reaches
 * them and not only the next HTTP request. PostgreSQL announces every revocation (and deletion) of
 * a key at commit to every instance (revocations.ts): the connections of that key on this instance
 * are told to end at once. Announcements made while the listening connection was down are lost, so
 * each time it (re)connects every open connection's key is read again from the database.
 */
export class KeySessions {
  private readonly byKey = new Map<string, Set<Entry>>();
  /** Revocations heard and (re)connections of the listener so far: see `mark`. */
  private heard = 0;
  private feed: RevocationFeed | undefined;
  private retry: NodeJS.Timeout | undefined;
  /** Keys of connections just opened, to be read again together (many streams open at once). */
  private readonly toCheck = new Set<string>();
  private stopped = false;

  constructor(
    /** Where keys are read. */
    private readonly sql: Sql,
    /** Where the announcements are heard (the rate limiter's pool: one listening connection for both). */
    private readonly listenSql: Sql,
    private readonly log: Logger,
  ) {}

  start(): void {
    this.feed = listenForRevocations(this.listenSql, this.log, {
      onRevoked: (keyId) => {
        this.heard++;
        this.endKey(keyId);
      },
      onListening: () => {
        this.heard++;
        void this.recheck();
      },
    });
  }

  /**
   * Taken before a key is read from the database: passed to `open`, it tells whether anything was
   * heard (or could have been missed) between that read and the connection being watched.
   */
  mark(): number {
    return this.heard;
  }

  /**
   * Watches a connection of `keyId`; `onRevoked` runs once, when the key is found revoked or deleted.
   * With the `mark` taken before the key was read, the key is read again only if a revocation was
   * heard since; without one it is read again in any case (the caller's read may predate the
   * announcement of a revocation this instance already heard).
   */
  open(keyId: string, onRevoked: () => void, markBeforeRead?: number): KeySession {
    const entry: Entry = { keyId, onRevoked, revoked: false, close: () => this.forget(entry) };
    let set = this.byKey.get(keyId);
    if (!set) {
      set = new Set();
      this.byKey.set(keyId, set);
    }
    set.add(entry);
    if (markBeforeRead === undefined || markBeforeRead !== this.heard) this.checkSoon(keyId);
    return entry;
  }

  /** Ends every connection of the key on this instance (it was found revoked or gone). */
  endKey(keyId: string): void {
    const set = this.byKey.get(keyId);
    if (!set) return;
    this.byKey.delete(keyId);
    for (const entry of set) {
      entry.revoked = true;
      try {
        entry.onRevoked();
      } catch (error) {
        this.log.warn({ err: error, key_id: keyId }, 'ending a connection of a revoked key failed');
      }
    }
  }

  /** Connections watched (for tests and metrics). */
  get size(): number {
    let n = 0;
    for (const set of this.byKey.values()) n += set.size;
    return n;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retry);
    await this.feed?.stop();
  }

  private forget(entry: Entry): void {
    const set = this.byKey.get(entry.keyId);
    if (!set?.delete(entry)) return;
    if (set.size === 0) this.byKey.delete(entry.keyId);
  }

  /** Reads the key again shortly, with those of every other connection opened meanwhile. */
  private checkSoon(keyId: string): void {
    if (this.toCheck.size === 0)
      setImmediate(() => {
        const keyIds = [...this.toCheck];
        this.toCheck.clear();
        void this.checkOrRetry(keyIds);
      });
    this.toCheck.add(keyId);
  }

  /** Reads every watched key again: announcements may have been missed while not listening. */
  private async recheck(): Promise<void> {
    clearTimeout(this.retry);
    this.retry = undefined;
    await this.checkOrRetry([...this.byKey.keys()]);
  }

  private async checkOrRetry(keyIds: string[]): Promise<void> {
    if (this.stopped || keyIds.length === 0) return;
    if (await this.check(keyIds)) return;
    // Until a check succeeds, a revocation may be unknown here: every watched key is read again.
    if (!this.stopped && !this.retry) {
      this.retry = setTimeout(() => void this.recheck(), RECHECK_RETRY_MS);
      this.retry.unref();
    }
  }

  /** Ends the connections of those keys that are no longer active; false if the database did not answer. */
  private async check(keyIds: string[]): Promise<boolean> {
    try {
      for (let i = 0; i < keyIds.length; i += CHECK_BATCH) {
        const batch = keyIds.slice(i, i + CHECK_BATCH);
        const rows = await withDeadline(
          this.sql<{ id: string }[]>`
            SELECT id FROM gateway.api_keys WHERE id = ANY(${batch}::uuid[]) AND revoked_at IS NULL`,
          CHECK_DEADLINE_MS,
          'API key check of open connections',
        );
        const active = new Set(rows.map((row) => row.id));
        for (const keyId of batch) if (!active.has(keyId)) this.endKey(keyId);
      }
      return true;
    } catch (error) {
      if (!this.stopped)
        this.log.warn({ err: error }, 'cannot check the keys of open connections; trying again');
      return false;
    }
  }
}
