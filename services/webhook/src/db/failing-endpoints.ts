import type { SqlFragment, TransactionSql } from '@voice/shared';
import type { EndpointState } from './deliveries';

/**
 * The failing rows a finished delivery (`done`, an UPDATE ... RETURNING of it) moves, in the same
 * statement: what the webhook_endpoints_failing gauge counts and the failing/recovered log lines say.
 */
type FailingRow = Omit<EndpointState, 'state'>;

/** The delivery's final status, and its target's failing row when this outcome moved one. */
export interface Finished {
  status: 'succeeded' | 'failed' | 'cancelled';
  failing: FailingRow | undefined;
}

/** Runs `move` (a statement over the CTE `done`) with the delivery's update, in one statement. */
async function finish(
  tx: TransactionSql,
  done: SqlFragment,
  move: SqlFragment,
): Promise<Finished | undefined> {
  const [row] = await tx<
    { status: Finished['status']; failed_deliveries: number | null; failing_since: Date | null }[]
  >`
    with done as (${done}), moved as (${move})
    select done.status, moved.failed_deliveries, moved.failing_since from done left join moved on true`;
  if (!row) return undefined;
  const { status, failed_deliveries, failing_since } = row;
  return {
    status,
    failing:
      failed_deliveries === null || failing_since === null ? undefined : { failed_deliveries, failing_since },
  };
}

/** An agent's webhook: a success removes its failing row, a failure adds to it. */
export function agentWebhookState(
  tx: TransactionSql,
  done: SqlFragment,
  outcome: 'succeeded' | 'failed',
): Promise<Finished | undefined> {
  return finish(
    tx,
    done,
    outcome === 'succeeded'
      ? tx`
          delete from webhook.failing_endpoints f using done
           where f.account_id = done.account_id and f.agent_id = done.agent_id
          returning f.failed_deliveries, f.failing_since`
      : tx`
          insert into webhook.failing_endpoints as f
            (account_id, agent_id, failed_deliveries, failing_since, last_failed_at)
          select account_id, agent_id, 1, created_at, now() from done where agent_id is not null
          on conflict (account_id, agent_id) do update
            set failed_deliveries = f.failed_deliveries + 1, last_failed_at = now(),
                failing_since = least(f.failing_since, excluded.failing_since)
          returning f.failed_deliveries, f.failing_since`,
  );
}

/** An account endpoint: the same, keyed by the endpoint; a cancelled delivery counts as neither. */
export function accountEndpointState(
  tx: TransactionSql,
  done: SqlFragment,
  outcome: 'succeeded' | 'failed',
): Promise<Finished | undefined> {
  return finish(
    tx,
    done,
    outcome === 'succeeded'
      ? tx`
          delete from webhook.failing_account_endpoints f using done
           where f.endpoint_id = done.endpoint_id
          returning f.failed_deliveries, f.failing_since`
      : tx`
          insert into webhook.failing_account_endpoints as f
            (endpoint_id, account_id, failed_deliveries, failing_since, last_failed_at)
          select endpoint_id, account_id, 1, created_at, now() from done
           where endpoint_id is not null and status = 'failed'
          on conflict (endpoint_id) do update
            set failed_deliveries = f.failed_deliveries + 1, last_failed_at = now(),
                failing_since = least(f.failing_since, excluded.failing_since)
          returning f.failed_deliveries, f.failing_since`,
  );
}
