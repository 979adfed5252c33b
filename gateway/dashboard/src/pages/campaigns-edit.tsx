import { useEffect, useState } from 'preact/hooks';
import { ApiError, type FieldIssue, gql } from '../api';
import { ErrorNote, FormActions } from '../ui';
import { CAMPAIGN_FIELDS, type Campaign } from './campaigns-model';
import { Field, NO_WINDOW, type WindowDraft, WindowFields, windowInput } from './campaigns-ui';

const UPDATE = `mutation UpdateCampaign($id: ID!, $input: UpdateCampaignInput!) {
  updateCampaign(id: $id, input: $input) { ${CAMPAIGN_FIELDS} }
}`;

function draftOf(campaign: Campaign) {
  const window = campaign.callingWindow;
  return {
    name: campaign.name,
    cap: String(campaign.maxConcurrentCalls),
    window: window ? { on: true, ...window } : NO_WINDOW,
  };
}

/**
 * The settings a campaign that has not finished can change (updateCampaign): its name, its cap on
 * calls at once and its calling window. Only changed fields are sent; the server's refusal of a
 * field is shown beside it.
 */
export function CampaignEdit(props: { campaign: Campaign; onSaved: (campaign: Campaign) => void }) {
  const { campaign } = props;
  const [name, setName] = useState(campaign.name);
  const [cap, setCap] = useState(String(campaign.maxConcurrentCalls));
  const [window, setWindow] = useState<WindowDraft>(draftOf(campaign).window);
  const [issues, setIssues] = useState<FieldIssue[]>([]);
  const [error, setError] = useState<string>();
  const [saved, setSaved] = useState<string>();
  const [busy, setBusy] = useState(false);

  // Another tab's edit arrives live: the form follows it while the user has not changed a field.
  const original = draftOf(campaign);
  const [base, setBase] = useState(original);
  useEffect(() => {
    const now = draftOf(campaign);
    if (name === base.name) setName(now.name);
    if (cap === base.cap) setCap(now.cap);
    if (JSON.stringify(window) === JSON.stringify(base.window)) setWindow(now.window);
    setBase(now);
  }, [campaign.name, campaign.maxConcurrentCalls, JSON.stringify(campaign.callingWindow)]);

  const submit = async (event: Event) => {
    event.preventDefault();
    const input: Record<string, unknown> = {};
    if (name !== original.name) input.name = name;
    if (cap !== original.cap) input.maxConcurrentCalls = Number(cap);
    if (JSON.stringify(window) !== JSON.stringify(original.window)) input.callingWindow = windowInput(window);
    setIssues([]);
    setError(undefined);
    setSaved(undefined);
    if (Object.keys(input).length === 0) {
      setSaved('Nothing to save.');
      return;
    }
    setBusy(true);
    try {
      const data = await gql<{ updateCampaign: Campaign }>(UPDATE, { id: campaign.id, input });
      props.onSaved(data.updateCampaign);
      setSaved('Settings saved.');
    } catch (cause) {
      const issues = cause instanceof ApiError ? cause.issues : [];
      setIssues(issues);
      setError(
        issues.length ? 'The server refused some settings: see the fields below.' : (cause as Error).message,
      );
    } finally {
      setBusy(false);
    }
  };

  return (
    <article class="card" aria-labelledby="edit-title">
      <h2 id="edit-title">Settings</h2>
      <form class="campaign-form" onSubmit={submit} noValidate>
        <ErrorNote message={error} />
        <Field id="edit-name" label="Name" field="name" issues={issues}>
          {(input) => <input {...input} value={name} onInput={(e) => setName(e.currentTarget.value)} />}
        </Field>
        <Field id="edit-cap" label="Calls at once (cap)" field="maxConcurrentCalls" issues={issues}>
          {(input) => (
            <input
              {...input}
              type="number"
              inputMode="numeric"
              value={cap}
              onInput={(e) => setCap(e.currentTarget.value)}
            />
          )}
        </Field>
        <WindowFields idPrefix="edit-window" draft={window} issues={issues} onChange={setWindow} />
        <FormActions busy={busy} label="Save settings" saved={saved} />
      </form>
    </article>
  );
}
