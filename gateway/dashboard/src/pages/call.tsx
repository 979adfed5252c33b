import { useEffect, useState } from 'preact/hooks';
import { gql } from '../api';
import { dateTime, FINAL_STATUSES, label, money, seconds, time } from '../format';
import { subscribe } from '../live';
import { ErrorNote, Link, Loading, NotFound, StatusBadge } from '../ui';

interface CallDetail {
  id: string;
  status: string;
  phoneNumber: string;
  sourceNumber: string;
  direction: string;
  agentId: string;
  agentName: string;
  campaignId: string | null;
  createdAt: string;
  startedAt: string | null;
  answeredAt: string | null;
  endedAt: string | null;
  durationSeconds: number;
  transcript: { role: string; content: string; timestamp: string; confidence: number | null }[];
  recordingUrl: string;
  sentiment: string;
  callSummary: string | null;
  callEndReason: string | null;
  endedBy: string | null;
  detailsCollection: {
    status: string;
    score: number;
    collectedDetails: string[];
    collectedValues: Record<string, unknown>;
  } | null;
  aiCost: number;
  telephonyCost: number;
  totalCost: number;
  costCurrency: string;
  telephony: { carrier: string; trunkId: string | null; sipCode: number | null; sipReason: string | null };
}

const FIELDS = `id status phoneNumber sourceNumber direction agentId agentName campaignId
  createdAt startedAt answeredAt endedAt durationSeconds
  transcript { role content timestamp confidence } recordingUrl sentiment callSummary callEndReason endedBy
  detailsCollection { status score collectedDetails collectedValues }
  aiCost telephonyCost totalCost costCurrency telephony { carrier trunkId sipCode sipReason }`;
const CALL = `query CallPage($id: ID!) { call(id: $id) { ${FIELDS} } }`;
const LIVE = `subscription CallPage($id: ID!) { callStatusChanged(callId: $id) { ${FIELDS} } }`;

/** One call: its timeline, conversation, outcome, costs, SIP details and recording. */
export function CallPage(props: { id: string }) {
  const [call, setCall] = useState<CallDetail | null>();
  const [error, setError] = useState<string>();

  useEffect(() => {
    setCall(undefined);
    const stop = subscribe<{ callStatusChanged: CallDetail }>(
      LIVE,
      { id: props.id },
      (data) => setCall(data.callStatusChanged),
      setError,
    );
    gql<{ call: CallDetail | null }>(CALL, { id: props.id })
      .then((data) => setCall((seen) => (seen && FINAL_STATUSES.has(seen.status) ? seen : data.call)))
      .catch((cause: Error) => setError(cause.message));
    return stop;
  }, [props.id]);

  if (call === null) {
    return (
      <NotFound title="Call not found">
        There is no call {props.id} in this account. <Link to="/calls">Back to the calls</Link>
      </NotFound>
    );
  }
  if (!call) return <Loading error={error} />;

  const timeline: [string, string | null][] = [
    ['Placed', call.createdAt],
    ['Dialed', call.startedAt],
    ['Answered', call.answeredAt],
    ['Ended', call.endedAt],
  ];
  return (
    <section aria-labelledby="call-title" data-testid="call-page" data-status={call.status}>
      <p>
        <Link to="/calls">← All calls</Link>
      </p>
      <div class="title-row">
        <h1 id="call-title">Call to {call.phoneNumber}</h1>
        <StatusBadge status={call.status} />
      </div>
      <ErrorNote message={error} />
      <div class="cards">
        <article class="card" aria-labelledby="timeline-title">
          <h2 id="timeline-title">Status timeline</h2>
          <ol class="timeline" data-testid="timeline">
            {timeline.map(([name, at]) => (
              <li key={name} class={at ? 'done' : 'todo'}>
                <span>{name}</span> <time dateTime={at ?? undefined}>{time(at)}</time>
              </li>
            ))}
          </ol>
          <p>
            Now <strong>{label(call.status)}</strong>
            {call.callEndReason ? `, ${label(call.callEndReason)}` : ''}
            {call.endedBy ? ` (ended by ${label(call.endedBy)})` : ''}.
          </p>
        </article>
        <article class="card" aria-labelledby="recording-title">
          <h2 id="recording-title">Recording</h2>
          {call.recordingUrl ? (
            // biome-ignore lint/a11y/useMediaCaption: the transcript below is the recording's text.
            <audio
              controls
              preload="metadata"
              src={call.recordingUrl}
              data-testid="recording"
              aria-label="Call recording"
            />
          ) : (
            <p class="hint">
              {FINAL_STATUSES.has(call.status)
                ? 'This call has no recording.'
                : 'Available when the call ends.'}
            </p>
          )}
        </article>
        <article class="card" aria-labelledby="facts-title">
          <h2 id="facts-title">Call</h2>
          <dl>
            <dt>Agent</dt>
            <dd>{call.agentName}</dd>
            <dt>From</dt>
            <dd>{call.sourceNumber}</dd>
            <dt>Direction</dt>
            <dd>{call.direction}</dd>
            <dt>Length</dt>
            <dd>{seconds(call.durationSeconds)}</dd>
            <dt>Sentiment</dt>
            <dd data-testid="sentiment">{label(call.sentiment)}</dd>
            <dt>Created</dt>
            <dd>{dateTime(call.createdAt)}</dd>
            {call.campaignId ? (
              <>
                <dt>Campaign</dt>
                <dd>
                  <code>{call.campaignId}</code>
                </dd>
              </>
            ) : null}
          </dl>
        </article>
        <article class="card" aria-labelledby="costs-title">
          <h2 id="costs-title">Costs</h2>
          <dl>
            <dt>AI</dt>
            <dd>{money(call.aiCost, call.costCurrency)}</dd>
            <dt>Telephony</dt>
            <dd>{money(call.telephonyCost, call.costCurrency)}</dd>
            <dt>Total</dt>
            <dd data-testid="total-cost">{money(call.totalCost, call.costCurrency)}</dd>
          </dl>
        </article>
        <article class="card" aria-labelledby="sip-title">
          <h2 id="sip-title">SIP details</h2>
          <dl>
            <dt>Carrier</dt>
            <dd>{label(call.telephony.carrier)}</dd>
            <dt>Trunk</dt>
            <dd>{call.telephony.trunkId ? <code>{call.telephony.trunkId}</code> : '—'}</dd>
            <dt>SIP code</dt>
            <dd data-testid="sip-code">
              {call.telephony.sipCode ?? '—'} {call.telephony.sipReason ?? ''}
            </dd>
          </dl>
        </article>
        <article class="card wide" aria-labelledby="details-title">
          <h2 id="details-title">Collected details</h2>
          {call.detailsCollection ? (
            <>
              <p>
                {label(call.detailsCollection.status)}, score {Math.round(call.detailsCollection.score * 100)}
                %
              </p>
              <dl data-testid="collected">
                {Object.entries(call.detailsCollection.collectedValues).map(([name, value]) => (
                  <>
                    <dt key={`${name}-name`}>{label(name)}</dt>
                    <dd key={`${name}-value`}>{typeof value === 'string' ? value : JSON.stringify(value)}</dd>
                  </>
                ))}
              </dl>
            </>
          ) : (
            <p class="hint">None yet.</p>
          )}
          {call.callSummary ? <p>{call.callSummary}</p> : null}
        </article>
        <article class="card wide" aria-labelledby="transcript-title">
          <h2 id="transcript-title">Transcript</h2>
          {call.transcript.length ? (
            <ol class="transcript" data-testid="transcript">
              {call.transcript.map((entry, index) => (
                <li key={index} class={`turn ${entry.role.toLowerCase()}`}>
                  <span class="who">{label(entry.role)}</span> <span>{entry.content}</span>
                </li>
              ))}
            </ol>
          ) : (
            <p class="hint">No conversation yet.</p>
          )}
        </article>
      </div>
    </section>
  );
}
