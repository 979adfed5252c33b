import { useEffect, useMemo, useState } from 'preact/hooks';
import { ApiError, type FieldIssue, gql, newIdempotencyKey } from '../api';
import { navigate } from '../router';
import { ErrorNote, PageTitle } from '../ui';
import { type CsvTable, contactsOf, guessPhoneColumn, readTable } from './campaigns-csv';
import { DryRunReport, VALIDATION_FIELDS, type Validation } from './campaigns-report';
import { Field, FieldError, NO_WINDOW, type WindowDraft, WindowFields, windowInput } from './campaigns-ui';

const AGENTS = `query CampaignAgents { agents(pageSize: 100) { items { id name } } }`;
const VALIDATE = `mutation Check($input: CreateCampaignInput!) { validateCampaign(input: $input) { ${VALIDATION_FIELDS} } }`;
const CREATE = `mutation Start($input: CreateCampaignInput!, $key: String) {
  createCampaign(input: $input, idempotencyKey: $key) { id }
}`;

interface Draft {
  agentId: string;
  name: string;
  from: string;
  cap: string;
  window: WindowDraft;
}

/**
 * A new campaign from a CSV file: the file is read in the browser, the user picks the phone column
 * (every other column goes with each contact as its variables), "Check" runs the dry run
 * (validateCampaign) and shows its report, and only then can the same input be started.
 */
export function NewCampaign() {
  const [agents, setAgents] = useState<{ id: string; name: string }[]>();
  const [draft, setDraft] = useState<Draft>({ agentId: '', name: '', from: '', cap: '2', window: NO_WINDOW });
  // `read` counts the files read, so a report can tell which file it checked without comparing rows.
  const [file, setFile] = useState<{ name: string; table: CsvTable; read: number }>();
  const [phoneColumn, setPhoneColumn] = useState('');
  // `key`: the idempotency key of starting what this report checked, so a double click or a retry of
  // "Start" creates one campaign, and a changed form (checked again) is a new request.
  const [report, setReport] = useState<{ validation: Validation; input: string; key: string }>();
  const [issues, setIssues] = useState<FieldIssue[]>([]);
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState<'check' | 'start'>();

  useEffect(() => {
    gql<{ agents: { items: { id: string; name: string }[] } }>(AGENTS)
      .then((data) => {
        setAgents(data.agents.items);
        setDraft((now) => ({ ...now, agentId: now.agentId || (data.agents.items[0]?.id ?? '') }));
      })
      .catch((cause: Error) => setError(cause.message));
  }, []);

  const set = (field: 'agentId' | 'name' | 'from' | 'cap') => (event: Event) => {
    const value = (event.currentTarget as HTMLInputElement).value;
    setDraft((now) => ({ ...now, [field]: value }));
  };

  const readFile = async (event: Event) => {
    const picked = (event.currentTarget as HTMLInputElement).files?.[0];
    setError(undefined);
    if (!picked) return;
    const table = readTable(await picked.text());
    if (table.header.length === 0 || table.rows.length === 0) {
      setError(`${picked.name} has no rows under a header line.`);
      return;
    }
    setFile((before) => ({ name: picked.name, table, read: (before?.read ?? 0) + 1 }));
    setPhoneColumn(guessPhoneColumn(table.header));
    setDraft((now) => ({ ...now, name: now.name || picked.name.replace(/\.csv$/i, '') }));
  };

  const contacts = useMemo(() => (file ? contactsOf(file.table) : []), [file]);
  const settings = {
    name: draft.name,
    agentId: draft.agentId,
    phoneNumber: draft.from,
    phoneColumn,
    maxConcurrentCalls: Number(draft.cap),
    ...(draft.window.on ? { callingWindow: windowInput(draft.window) } : {}),
  };
  const input = () => ({ ...settings, contacts });
  // The report stands for exactly the input it checked: any change asks for a new check.
  const current = JSON.stringify({ ...settings, file: file?.read });
  const checked = report !== undefined && report.input === current;

  const run = async (kind: 'check' | 'start') => {
    setBusy(kind);
    setIssues([]);
    setError(undefined);
    try {
      if (kind === 'check') {
        const data = await gql<{ validateCampaign: Validation }>(VALIDATE, { input: input() });
        setReport({ validation: data.validateCampaign, input: current, key: newIdempotencyKey() });
      } else {
        const data = await gql<{ createCampaign: { id: string } }>(CREATE, {
          input: input(),
          key: report?.key,
        });
        navigate(`/campaigns/${data.createCampaign.id}`);
      }
    } catch (cause) {
      const found = cause instanceof ApiError ? cause.issues : [];
      setIssues(found);
      setError(found.length ? 'The server refused some fields: see below.' : (cause as Error).message);
    } finally {
      setBusy(undefined);
    }
  };

  const sample = file?.table.rows[0] ?? [];
  return (
    <section aria-labelledby="new-campaign-title">
      <PageTitle id="new-campaign-title" back={{ to: '/campaigns', label: 'Campaigns' }}>
        New campaign
      </PageTitle>
      <form
        class="campaign-form new"
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          void run('check');
        }}
      >
        <ErrorNote message={error} />
        <div class="field wide">
          <label for="campaign-file">Contacts (CSV file with a header line)</label>
          <input id="campaign-file" type="file" accept=".csv,text/csv" onChange={readFile} />
          {file ? (
            <span class="hint" data-testid="file-summary">
              {file.name}: {file.table.rows.length} rows, columns {file.table.header.join(', ')}
            </span>
          ) : null}
          <FieldError id="campaign-contacts-error" issues={issues} field="contacts" />
        </div>
        {file ? (
          <Field
            id="campaign-phone-column"
            label="Phone column"
            field="phoneColumn"
            issues={issues}
            wide
            hint="The other columns go with each contact as its variables."
          >
            {(input) => (
              <select {...input} value={phoneColumn} onChange={(e) => setPhoneColumn(e.currentTarget.value)}>
                {file.table.header.map((name, index) => (
                  <option key={index} value={name}>
                    {name}
                    {sample[index] ? ` (e.g. ${sample[index]})` : ''}
                  </option>
                ))}
              </select>
            )}
          </Field>
        ) : null}
        <Field id="campaign-agent" label="Agent" field="agentId" issues={issues}>
          {(input) => (
            <select {...input} value={draft.agentId} onChange={set('agentId')} disabled={!agents}>
              {agents?.map((agent) => (
                <option key={agent.id} value={agent.id}>
                  {agent.name}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field id="campaign-name" label="Name" field="name" issues={issues}>
          {(input) => <input {...input} value={draft.name} onInput={set('name')} />}
        </Field>
        <Field id="campaign-from" label="Call from (E.164)" field="phoneNumber" issues={issues}>
          {(input) => (
            <input
              {...input}
              type="tel"
              placeholder="+14155550100"
              value={draft.from}
              onInput={set('from')}
            />
          )}
        </Field>
        <Field id="campaign-cap" label="Calls at once (cap)" field="maxConcurrentCalls" issues={issues}>
          {(input) => (
            <input {...input} type="number" inputMode="numeric" value={draft.cap} onInput={set('cap')} />
          )}
        </Field>
        <WindowFields
          idPrefix="campaign-window"
          draft={draft.window}
          issues={issues}
          onChange={(window) => setDraft((now) => ({ ...now, window }))}
        />
        <div class="form-actions">
          <button type="submit" disabled={!!busy || !file}>
            {busy === 'check' ? 'Checking…' : 'Check'}
          </button>
          <button type="button" disabled={!!busy || !checked} onClick={() => run('start')}>
            {busy === 'start' ? 'Starting…' : 'Start campaign'}
          </button>
          <span class="hint" role="status">
            {checked ? 'Checked: nothing was created yet.' : file ? 'Check the list before starting.' : ''}
          </span>
        </div>
      </form>
      {report ? <DryRunReport validation={report.validation} stale={!checked} /> : null}
    </section>
  );
}
