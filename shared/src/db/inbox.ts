import { assertIdentifier, type Sql, type TransactionSql } from './connect';
import { transaction } from './outbox';

export type ProcessOnceResult<T> = { duplicate: true } | { duplicate: false; value: T };

/**
 * Applies a consumer's effect at most once per event. The processed-event row and the effect
 * share one transaction: either both commit or neither does, so a redelivery after a crash or a
 * late ack re-runs nothing that was applied and retries anything that was not. A concurrent
 * duplicate blocks on the first one's row until it commits (duplicate) or rolls back (applies).
 */
export async function processOnce<T>(
  sql: Sql,
  schema: string,
  consumer: string,
  eventId: string,
  effect: (tx: TransactionSql) => Promise<T>,
): Promise<ProcessOnceResult<T>> {
  const table = assertIdentifier(schema);
  // `transaction` boxes the result itself, so postgres.js's result-unwrapping types never see T.
  return transaction(sql, async (tx): Promise<ProcessOnceResult<T>> => {
    const inserted = await tx`
      insert into ${tx(table)}.processed_events (consumer, event_id) values (${consumer}, ${eventId})
      on conflict do nothing returning 1`;
    if (inserted.length === 0) return { duplicate: true };
    return { duplicate: false, value: await effect(tx) };
  });
}
