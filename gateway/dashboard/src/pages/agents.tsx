import { useEffect, useState } from 'preact/hooks';
import { gql } from '../api';
import { dateTime } from '../format';
import { navigate } from '../router';
import { ErrorNote, Link } from '../ui';
import { AgentDetail } from './agents-detail';
import { AgentForm, type AgentSettings, EMPTY_SETTINGS, settingsInput } from './agents-form';
import { AgentWebhook } from './agents-webhook';

interface Row {
  id: string;
  name: string;
  agentType: string;
  language: string;
  voice: string;
  updatedAt: string;
}

const LIST = `query Agents { agents(pageSize: 100) { items { id name agentType language voice updatedAt } total } }`;
const CREATE = `mutation CreateAgent($input: CreateAgentInput!) { createAgent(input: $input) { id } }`;
const SAVE_VERSION = `mutation SaveVersion($agentId: ID!, $label: String) {
  savePromptVersion(agentId: $agentId, label: $label) { id }
}`;

const UUID = '[0-9a-f-]{36}';

/** The agents pages: /agents, /agents/new, /agents/<id>, /agents/<id>/webhook. */
export function AgentsRoute(props: { path: string }) {
  const detail = new RegExp(`^/agents/(${UUID})(/webhook)?$`).exec(props.path);
  if (props.path === '/agents/new') return <NewAgent />;
  if (detail?.[1] && detail[2]) return <AgentWebhook id={detail[1]} />;
  if (detail?.[1]) return <AgentDetail id={detail[1]} />;
  return <AgentsList />;
}

function AgentsList() {
  const [rows, setRows] = useState<Row[]>();
  const [error, setError] = useState<string>();
  useEffect(() => {
    gql<{ agents: { items: Row[] } }>(LIST)
      .then((data) => setRows(data.agents.items))
      .catch((cause: Error) => setError(cause.message));
  }, []);
  return (
    <section aria-labelledby="agents-title">
      <div class="title-row">
        <h1 id="agents-title">Agents</h1>
        <Link to="/agents/new" class="button-link">
          New agent
        </Link>
      </div>
      <ErrorNote message={error} />
      {rows === undefined && !error && <p aria-live="polite">Loading…</p>}
      {rows?.length === 0 && <p class="hint">No agents yet.</p>}
      {rows && rows.length > 0 && (
        <div class="table-wrap contained">
          <table data-testid="agents-list">
            <caption class="visually-hidden">The account's agents, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Type</th>
                <th scope="col">Language</th>
                <th scope="col">Voice</th>
                <th scope="col">Updated</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <tr key={row.id} data-agent-id={row.id}>
                  <td>
                    <Link to={`/agents/${row.id}`}>{row.name}</Link>
                  </td>
                  <td>{row.agentType.replaceAll('_', ' ')}</td>
                  <td>{row.language}</td>
                  <td>{row.voice}</td>
                  <td>{dateTime(row.updatedAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

function NewAgent() {
  const create = async (settings: AgentSettings) => {
    const { createAgent } = await gql<{ createAgent: { id: string } }>(CREATE, {
      input: settingsInput(settings),
    });
    // The generated prompt is kept as version 1, so the first edit has something to compare with.
    await gql(SAVE_VERSION, { agentId: createAgent.id, label: 'Initial' });
    navigate(`/agents/${createAgent.id}`);
  };
  return (
    <section aria-labelledby="new-agent-title">
      <p>
        <Link to="/agents">← Agents</Link>
      </p>
      <h1 id="new-agent-title">New agent</h1>
      <AgentForm initial={EMPTY_SETTINGS} submitLabel="Create agent" onSubmit={create} />
    </section>
  );
}
