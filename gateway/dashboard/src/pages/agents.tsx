import { useEffect, useState } from 'preact/hooks';
import { gql } from '../api';
import { dateTime } from '../format';
import { navigate } from '../router';
import { DataTable, Link, ListStatus, ListTitle, PageTitle } from '../ui';
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
      <ListTitle id="agents-title" title="Agents" newTo="/agents/new" newLabel="New agent" />
      <ListStatus rows={rows} error={error} empty="No agents yet." />
      {rows && rows.length > 0 && (
        <DataTable
          testId="agents-list"
          contained
          caption="The account's agents, newest first"
          columns={['Name', 'Type', 'Language', 'Voice', 'Updated']}
        >
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
        </DataTable>
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
      <PageTitle id="new-agent-title" back={{ to: '/agents', label: 'Agents' }}>
        New agent
      </PageTitle>
      <AgentForm initial={EMPTY_SETTINGS} submitLabel="Create agent" onSubmit={create} />
    </section>
  );
}
