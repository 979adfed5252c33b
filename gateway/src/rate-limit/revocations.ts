import { type Logger, type Sql, waitAtMost } from '@voice/shared';

/** A database that does not answer must not hold the gateway's shutdown. */
const STOP_WAIT_MS = 2000;

/** Raised by the trigger on gateway.api_keys (migration 003) with the key's id, at commit. */
export const KEY_REVOKED_CHANNEL = 'gateway_key_revoked';

export interface RevocationFeed {
  /** True while the database's announcements reach this instance (see `onListening`). */
  readonly listening: boolean;
  stop(): Promise<void>;
}

/**
 * Hears every revocation committed to the database, whoever committed it (any gateway
 * instance's admin API, an operator's UPDATE): PostgreSQL announces it to every listening
 * session when it commits. `onListening` runs each time the listening connection is
 * (re)established: announcements made while it was down are lost, so whatever was trusted on
 * their absence must be checked again.
 */
export function listenForRevocations(
  sql: Sql,
  log: Logger,
  handlers: { onRevoked: (keyId: string) => void; onListening: () => void },
): RevocationFeed {
  let listening = false;
  let stopped = false;
  const request = sql.listen(KEY_REVOKED_CHANNEL, handlers.onRevoked, () => {
    if (stopped) return;
    handlers.onListening();
    listening = true;
  });
  request.catch((error: unknown) => {
    listening = false;
    if (!stopped)
      log.warn({ err: error }, 'cannot hear key revocations; API keys are checked on every request');
  });
  return {
    get listening() {
      return listening;
    },
    async stop() {
      stopped = true;
      listening = false;
      await waitAtMost(
        request.then((meta) => meta.unlisten()),
        STOP_WAIT_MS,
      );
    },
  };
}
