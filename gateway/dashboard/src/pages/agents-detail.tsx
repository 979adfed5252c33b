import { useEffect, useState } from 'preact/hooks';
import { gql } from '../api';
import { ErrorNote, Link, NotFound } from '../ui';
import { AgentForm, type AgentSettings, settingsInput, settingsOf } from './agents-form';
import { PromptVersions } from './agents-prompt';
import { TestCall } from './agents-test-call';

export interface AgentRecord extends Omit<AgentSettings, 'description'> {
  description: string | null;
  id: string;
  industry: string | null;
  prompt: string;
  promptSource: string;
  activePromptVersionId: string | null;
}

const FIELDS =
  'id name agentType industry language voice aiModel startFlow endFlow description prompt promptSource activePromptVersionId';
const AGENT = `query Agent($id: ID!) { agent(id: $id) { ${FIELDS} } }`;
const UPDATE = `mutation UpdateAgent($id: ID!, $input: UpdateAgentInput!) {
  updateAgent(id: $id, input: $input) { ${FIELDS} }
}`;

/** One agent: its settings, its prompt and versions, and a test call to the user's own phone. */
export function AgentDetail(props: { id: string }) {
  const [agent, setAgent] = useState<AgentRecord | null>();
  const [error, setError] = useState<string>();

  const load = () =>
    gql<{ agent: AgentRecord | null }>(AGENT, { id: props.id })
      .then((data) => setAgent(data.agent))
      .catch((cause: Error) => setError(cause.message));
  useEffect(() => {
    void load();
  }, [props.id]);

  const update = async (settings: AgentSettings) => {
    const { updateAgent } = await gql<{ updateAgent: AgentRecord }>(UPDATE, {
      id: props.id,
      input: settingsInput(settings),
    });
    setAgent(updateAgent);
  };

  if (agent === null) {
    return (
      <NotFound title="Agent not found">
        There is no agent {props.id} in this account. <Link to="/agents">Back to the agents</Link>
      </NotFound>
    );
  }
  return (
    <section aria-labelledby="agent-title" data-testid="agent-page">
      <p class="crumbs">
        <Link to="/agents">← Agents</Link>
        {agent && <Link to={`/agents/${agent.id}/webhook`}>Webhook settings</Link>}
      </p>
      <h1 id="agent-title">{agent?.name ?? 'Agent'}</h1>
      <ErrorNote message={error} />
      {agent ? (
        <div class="cards">
          <article class="card wide" aria-labelledby="settings-title">
            <h2 id="settings-title">Settings</h2>
            <AgentForm
              key={agent.id}
              initial={settingsOf(agent)}
              industry={agent.industry}
              submitLabel="Save settings"
              onSubmit={update}
            />
          </article>
          <PromptVersions agent={agent} onChanged={load} />
          <TestCall agentId={agent.id} />
        </div>
      ) : (
        !error && <p aria-live="polite">Loading…</p>
      )}
    </section>
  );
}
