import { Fragment } from 'preact';
import { dateTime } from '../format';
import { duration } from './campaigns-model';

interface Row {
  position: number;
  value: string | null;
}

export interface Validation {
  counts: {
    total: number;
    valid: number;
    invalid: number;
    missingPhone: number;
    invalidPhone: number;
    duplicate: number;
    doNotCall: number;
  };
  problems: { missingPhone: Row[]; invalidPhone: Row[]; duplicate: Row[]; doNotCall: Row[] };
  timeZones: { zone: string; contacts: number }[];
  eta: {
    etaSeconds: number | null;
    estimatedCompletionAt: string | null;
    maxConcurrentCalls: number;
    accountMaxConcurrentCalls: number;
    avgCallSeconds: number;
    avgCallSource: string;
    agentCallsSampled: number;
    callingWindow: boolean;
  };
}

const ROWS = '{ position value }';
export const VALIDATION_FIELDS = `counts { total valid invalid missingPhone invalidPhone duplicate doNotCall }
  problems { missingPhone ${ROWS} invalidPhone ${ROWS} duplicate ${ROWS} doNotCall ${ROWS} }
  timeZones { zone contacts }
  eta { etaSeconds estimatedCompletionAt maxConcurrentCalls accountMaxConcurrentCalls avgCallSeconds
    avgCallSource agentCallsSampled callingWindow }`;

const KINDS = [
  ['missingPhone', 'No number'],
  ['invalidPhone', 'Not a valid E.164 number'],
  ['duplicate', 'Duplicate of an earlier row'],
  ['doNotCall', 'On the do-not-call list'],
] as const;

/** What the dry run says a create would do: counts with their first rows, zones and ETA. */
export function DryRunReport(props: { validation: Validation; stale: boolean }) {
  const { counts, problems, timeZones, eta } = props.validation;
  const cap = Math.min(eta.maxConcurrentCalls, eta.accountMaxConcurrentCalls);
  return (
    <section
      class="card report"
      aria-labelledby="report-title"
      data-testid="dry-run"
      data-stale={props.stale}
    >
      <h2 id="report-title">Dry run report</h2>
      {props.stale ? (
        <p class="hint" role="status">
          The form changed since this check: check again to start.
        </p>
      ) : null}
      <dl class="figures" data-testid="dry-run-counts">
        <dt>Contacts</dt>
        <dd data-count="total">{counts.total}</dd>
        <dt>To be called</dt>
        <dd data-count="valid">{counts.valid}</dd>
        {KINDS.map(([key, name]) => (
          <Fragment key={key}>
            <dt>{name}</dt>
            <dd data-count={key}>{counts[key]}</dd>
          </Fragment>
        ))}
      </dl>
      {KINDS.filter(([key]) => problems[key].length > 0).map(([key, name]) => (
        <div key={key} data-problem={key}>
          <h3>{name}</h3>
          <ul class="problem-rows">
            {problems[key].map((row) => (
              <li key={row.position}>
                Row {row.position + 1}: <code>{row.value ?? '(empty)'}</code>
              </li>
            ))}
          </ul>
        </div>
      ))}
      <h3>Time zones</h3>
      <ul class="chips" data-testid="dry-run-zones">
        {timeZones.map((zone) => (
          <li key={zone.zone}>
            {zone.zone}: {zone.contacts}
          </li>
        ))}
      </ul>
      <h3>How long</h3>
      <p data-testid="dry-run-eta">
        {eta.etaSeconds === null
          ? 'More than five years at this pace.'
          : `About ${duration(eta.etaSeconds)}, done around ${dateTime(eta.estimatedCompletionAt)}`}
        {eta.etaSeconds === null ? '' : '.'} {cap} call{cap === 1 ? '' : 's'} at once, each about{' '}
        {Math.round(eta.avgCallSeconds)} s (
        {eta.avgCallSource === 'AGENT_HISTORY'
          ? `the mean of the agent's last ${eta.agentCallsSampled} calls`
          : 'a default: the agent has no calls yet'}
        ){eta.callingWindow ? ', only while the calling window is open' : ''}; retries not counted.
      </p>
    </section>
  );
}
