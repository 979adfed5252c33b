import { useEffect, useState } from 'preact/hooks';
import { useAction } from '../action';
import { gql } from '../api';
import { label, time } from '../format';
import { DataTable, ErrorNote, Link, ListStatus } from '../ui';

interface Attempt {
  attempt: number;
  statusCode: number | null;
  error: string | null;
  succeeded: boolean;
  durationMs: number;
}
interface Delivery {
  id: string;
  event: string;
  url: string;
  status: string;
  test: boolean;
  redeliveryOf: string | null;
  createdAt: string;
  attempts: Attempt[];
}
interface WebhookAgent {
  id: string;
  name: string;
  webhookConfig: { url: string; events: string[]; hasSecret: boolean } | null;
  webhookDeliveries: { items: Delivery[]; total: number };
}

const AGENT = `query AgentWebhook($id: ID!) { agent(id: $id) {
  id name webhookConfig { url events hasSecret }
  webhookDeliveries(pageSize: 20) {
    items { id event url status test redeliveryOf createdAt attempts { attempt statusCode error succeeded durationMs } }
    total
  }
} }`;
const SAVE = `mutation SaveWebhook($id: ID!, $input: UpdateAgentInput!) { updateAgent(id: $id, input: $input) { id } }`;
const TEST = `mutation TestWebhook($agentId: ID!) { sendWebhookTest(agentId: $agentId) { id } }`;
const REDELIVER = `mutation Redeliver($agentId: ID!, $deliveryId: ID!) {
  redeliverWebhook(agentId: $agentId, deliveryId: $deliveryId) { id }
}`;

/** Deliveries run in the background: the log is read again this often while the page is open. */
const REFRESH_MS = 3000;

/** An agent's webhook: where call.ended goes, the delivery log, redeliver, and a test event. */
export function AgentWebhook(props: { id: string }) {
  const [agent, setAgent] = useState<WebhookAgent | null>();
  const [url, setUrl] = useState('');
  const [secret, setSecret] = useState('');

  const { busy, error, setError, status, run } = useAction(() => load());

  const load = () =>
    gql<{ agent: WebhookAgent | null }>(AGENT, { id: props.id }).then((data) => {
      setAgent(data.agent);
      return data.agent;
    });

  useEffect(() => {
    let stopped = false;
    load()
      .then((loaded) => {
        if (!stopped) setUrl(loaded?.webhookConfig?.url ?? '');
      })
      .catch((cause: Error) => setError(cause.message));
    const timer = setInterval(() => {
      load().catch(() => {});
    }, REFRESH_MS);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, [props.id]);

  const save = (event: Event) => {
    event.preventDefault();
    void run(async () => {
      const webhookConfig = { url, events: ['CALL_ENDED'], ...(secret ? { secret } : {}) };
      await gql(SAVE, { id: props.id, input: { webhookConfig } });
      setSecret('');
    }, 'Webhook saved.');
  };

  if (agent === null) {
    return (
      <section>
        <h1>Agent not found</h1>
        <Link to="/agents">← Agents</Link>
      </section>
    );
  }
  const config = agent?.webhookConfig;
  return (
    <section aria-labelledby="webhook-title" data-testid="webhook-page">
      <p class="crumbs">
        <Link to={`/agents/${props.id}`}>← {agent?.name ?? 'Agent'}</Link>
      </p>
      <h1 id="webhook-title">Webhook settings</h1>
      <ErrorNote message={error} />
      <div class="cards">
        <article class="card wide" aria-labelledby="endpoint-title">
          <h2 id="endpoint-title">Endpoint</h2>
          <p class="hint">
            Each call of this agent that ends is sent to this URL (event call.ended).
            {config?.hasSecret ? ' Deliveries are signed with your secret.' : ''}
          </p>
          <form class="inline-form" onSubmit={save}>
            <div class="field">
              <label for="webhook-webhook-url">Webhook URL</label>
              <input
                id="webhook-webhook-url"
                type="url"
                required
                maxLength={2048}
                placeholder="https://example.com/hooks/calls"
                value={url}
                onInput={(event) => setUrl(event.currentTarget.value)}
              />
            </div>
            <div class="field">
              <label for="webhook-secret">Signing secret (optional, kept write-only)</label>
              <input
                id="webhook-secret"
                type="password"
                autoComplete="off"
                maxLength={256}
                value={secret}
                onInput={(event) => setSecret(event.currentTarget.value)}
              />
            </div>
            <button type="submit" disabled={busy}>
              Save webhook
            </button>
          </form>
          <div class="form-actions">
            <button
              type="button"
              class="quiet"
              disabled={busy || !config}
              onClick={() => void run(() => gql(TEST, { agentId: props.id }), 'Test event sent.')}
            >
              Send test event
            </button>
            <span class="hint" role="status">
              {status}
            </span>
          </div>
        </article>
        <article class="card wide" aria-labelledby="log-title">
          <h2 id="log-title">Delivery log</h2>
          <ListStatus rows={agent?.webhookDeliveries.items} error={undefined} empty="No deliveries yet." />
          {agent && agent.webhookDeliveries.items.length > 0 && (
            <DataTable
              testId="delivery-log"
              contained
              caption="Latest deliveries, newest first"
              columns={[
                'When',
                'Event',
                'Status',
                'Last answer',
                'Attempts',
                <span key="actions" class="visually-hidden">
                  Actions
                </span>,
              ]}
            >
              {agent.webhookDeliveries.items.map((delivery) => {
                const last = delivery.attempts.at(-1);
                return (
                  <tr key={delivery.id} data-delivery-id={delivery.id} data-status={delivery.status}>
                    <td>{time(delivery.createdAt)}</td>
                    <td>
                      {label(delivery.event)}
                      {delivery.test ? ' (test)' : ''}
                      {delivery.redeliveryOf ? ' (redelivery)' : ''}
                    </td>
                    <td>
                      <span
                        class={`badge status-${delivery.status === 'SUCCEEDED' ? 'completed' : delivery.status === 'FAILED' ? 'no_answer' : 'ringing'}`}
                      >
                        {label(delivery.status)}
                      </span>
                    </td>
                    <td>{last ? (last.statusCode ?? last.error ?? '—') : '—'}</td>
                    <td>{delivery.attempts.length}</td>
                    <td>
                      <button
                        type="button"
                        class="quiet"
                        disabled={busy}
                        aria-label={`Redeliver the delivery of ${time(delivery.createdAt)}`}
                        onClick={() =>
                          void run(
                            () => gql(REDELIVER, { agentId: props.id, deliveryId: delivery.id }),
                            'Redelivery queued.',
                          )
                        }
                      >
                        Redeliver
                      </button>
                    </td>
                  </tr>
                );
              })}
            </DataTable>
          )}
        </article>
      </div>
    </section>
  );
}
