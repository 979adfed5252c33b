import type { SqlFragment, TransactionSql } from '@voice/shared';
import type { EndpointState } from './deliveries';

/**
 * The failing rows a finished delivery (`done`, an UPDATE ... RETURNING of it) moves, in the same
 * statement: what the webhook_endpoints_failing gauge counts and the failing/recovered log lines say.
 */
type FailingRow = Omit<EndpointState, 'state'>;

/** An agent's webhook: a success removes its failing row, a failure adds to it. */
export async function agentWebhookState(
  tx: TransactionSql,
  done: SqlFragment,
  outcome: 'succeeded' | 'failed',
): Promise<FailingRow | undefined> {
  const [row] =
    outcome === 'succeeded'
      ? await tx<FailingRow[]>`
          with done as (${done})
          delete from webhook.failing_endpoints f using done
           where f.account_id = done.account_id and f.agent_id = done.agent_id
          returning f.failed_deliveries, f.failing_since`
      : await tx<FailingRow[]>`
          with done as (${done})
          insert into webhook.failing_endpoints as f
            (account_id, agent_id, failed_deliveries, failing_since, last_failed_at)
          select account_id, agent_id, 1, created_at, now() from done where agent_id is not null
          on conflict (account_id, agent_id) do update
            set failed_deliveries = f.failed_deliveries + 1, last_failed_at = now(),
                failing_since = least(f.failing_since, excluded.failing_since)
          returning f.failed_deliveries, f.failing_since`;
  return row;
}

/** An account endpoint: the same, keyed by the endpoint; a cancelled delivery counts as neither. */
export async function accountEndpointState(
  tx: TransactionSql,
  done: SqlFragment,
  outcome: 'succeeded' | 'failed',
): Promise<FailingRow | undefined> {
  const [row] =
    outcome === 'succeeded'
      ? await tx<FailingRow[]>`
          with done as (${done})
          delete from webhook.failing_account_endpoints f using done
           where f.endpoint_id = done.endpoint_id
          returning f.failed_deliveries, f.failing_since`
      : await tx<FailingRow[]>`
          with done as (${done})
          insert into webhook.failing_account_endpoints as f
            (endpoint_id, account_id, failed_deliveries, failing_since, last_failed_at)
          select endpoint_id, account_id, 1, created_at, now() from done
           where endpoint_id is not null and status = 'failed'
          on conflict (endpoint_id) do update
            set failed_deliveries = f.failed_deliveries + 1, last_failed_at = now(),
                failing_since = least(f.failing_since, excluded.failing_since)
          returning f.failed_deliveries, f.failing_since`;
  return row;
}
