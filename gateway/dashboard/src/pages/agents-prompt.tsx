import { useEffect, useState } from 'preact/hooks';
import { useAction } from '../action';
import { gql } from '../api';
import { dateTime, label } from '../format';
import { ErrorNote } from '../ui';
import type { AgentRecord } from './agents-detail';
import { diffLines } from './agents-diff';

interface Version {
  id: string;
  version: number;
  label: string | null;
  prompt: string;
  promptSource: string;
  isActive: boolean;
  createdAt: string;
}

const VERSIONS = `query Versions($id: ID!) { agent(id: $id) {
  promptVersions(pageSize: 50) { items { id version label prompt promptSource isActive createdAt } total }
} }`;
const SAVE_PROMPT = `mutation SavePrompt($id: ID!, $instructions: String!, $label: String) {
  saveAgentInstructions(id: $id, instructions: $instructions) { agentId }
  savePromptVersion(agentId: $id, label: $label) { id }
}`;
const RESTORE = `mutation Restore($agentId: ID!, $versionId: ID!) {
  restorePromptVersion(agentId: $agentId, versionId: $versionId) { id }
}`;

/** The prompt editor (each save is a new version), the versions, a diff of two, and restore. */
export function PromptVersions(props: { agent: AgentRecord; onChanged: () => Promise<void> }) {
  const [draft, setDraft] = useState(props.agent.prompt);
  const [versionLabel, setVersionLabel] = useState('');
  const [versions, setVersions] = useState<Version[]>([]);
  const [compare, setCompare] = useState<{ older: Version; newer: Version }>();

  const { busy, error, setError, status, run } = useAction(() =>
    Promise.all([props.onChanged(), loadVersions()]),
  );

  const loadVersions = () =>
    gql<{ agent: { promptVersions: { items: Version[] } } | null }>(VERSIONS, { id: props.agent.id })
      .then((data) => setVersions(data.agent?.promptVersions.items ?? []))
      .catch((cause: Error) => setError(cause.message));
  useEffect(() => {
    void loadVersions();
  }, [props.agent.id]);
  useEffect(() => setDraft(props.agent.prompt), [props.agent.prompt]);

  const save = (event: Event) => {
    event.preventDefault();
    void run(async () => {
      await gql(SAVE_PROMPT, {
        id: props.agent.id,
        instructions: draft,
        label: versionLabel.trim() || null,
      });
      setVersionLabel('');
    }, 'Saved as a new version.');
  };
  const restore = (version: Version) =>
    run(
      () => gql(RESTORE, { agentId: props.agent.id, versionId: version.id }),
      `Restored version ${version.version}.`,
    );

  // Versions come newest first: the one before a version is the next in the list.
  const previousOf = (index: number): Version | undefined => versions[index + 1];

  return (
    <>
      <article class="card wide" aria-labelledby="prompt-title">
        <h2 id="prompt-title">Prompt</h2>
        <p class="hint">
          Source: {label(props.agent.promptSource)}. Saving makes your text the prompt and keeps it as a new
          version.
        </p>
        <form class="prompt-form" onSubmit={save}>
          <div class="field">
            <label for="prompt-prompt">Prompt</label>
            <textarea
              id="prompt-prompt"
              rows={10}
              required
              maxLength={20000}
              value={draft}
              onInput={(event) => setDraft(event.currentTarget.value)}
            />
          </div>
          <div class="field">
            <label for="prompt-version-label-optional">Version label (optional)</label>
            <input
              id="prompt-version-label-optional"
              maxLength={100}
              value={versionLabel}
              onInput={(event) => setVersionLabel(event.currentTarget.value)}
            />
          </div>
          <div class="form-actions">
            <button type="submit" disabled={busy || draft === props.agent.prompt}>
              Save as new version
            </button>
            <span class="hint" role="status">
              {status}
            </span>
          </div>
        </form>
        <ErrorNote message={error} />
      </article>
      <article class="card wide" aria-labelledby="versions-title">
        <h2 id="versions-title">Prompt versions</h2>
        {versions.length === 0 ? (
          <p class="hint">No saved versions yet.</p>
        ) : (
          <ol class="versions" data-testid="prompt-versions">
            {versions.map((version, index) => {
              const previous = previousOf(index);
              return (
                <li key={version.id} data-version={version.version} data-active={version.isActive}>
                  <span>
                    <strong>v{version.version}</strong> {version.label ?? ''}{' '}
                    <span class="hint">{dateTime(version.createdAt)}</span>{' '}
                    {version.isActive && <span class="badge status-completed">active</span>}
                  </span>
                  <span class="row-actions">
                    {previous && (
                      <button
                        type="button"
                        class="quiet"
                        onClick={() => setCompare({ older: previous, newer: version })}
                      >
                        Changes in v{version.version}
                      </button>
                    )}
                    {!version.isActive && (
                      <button
                        type="button"
                        class="quiet"
                        disabled={busy}
                        onClick={() => void restore(version)}
                      >
                        Restore v{version.version}
                      </button>
                    )}
                  </span>
                </li>
              );
            })}
          </ol>
        )}
        {compare && <Diff older={compare.older} newer={compare.newer} />}
      </article>
    </>
  );
}

function Diff(props: { older: Version; newer: Version }) {
  const lines = diffLines(props.older.prompt, props.newer.prompt);
  return (
    <figure class="diff" aria-labelledby="diff-title" data-testid="prompt-diff">
      <figcaption id="diff-title">
        Changes from v{props.older.version} to v{props.newer.version}
      </figcaption>
      {lines ? (
        <pre>
          {lines.map((line, index) => {
            const Tag = line.kind === 'added' ? 'ins' : line.kind === 'removed' ? 'del' : 'div';
            return (
              <Tag key={index} class={`diff-${line.kind}`}>
                {line.kind === 'same' ? '  ' : <span class="visually-hidden">{line.kind}: </span>}
                {line.kind === 'added' ? '+ ' : line.kind === 'removed' ? '- ' : ''}
                {line.text}
              </Tag>
            );
          })}
        </pre>
      ) : (
        <p class="hint">These prompts are too long to compare here.</p>
      )}
    </figure>
  );
}
