import { useEffect, useState } from 'preact/hooks';
import { gql, newIdempotencyKey } from '../api';
import { time } from '../format';
import { subscribe } from '../live';
import { ErrorNote, Link, StatusBadge } from '../ui';

interface TestCallRow {
  id: string;
  status: string;
  phoneNumber: string;
  createdAt: string;
}

const FIELDS = 'id status phoneNumber createdAt';
const RECENT = `query AgentCalls($agentId: ID) { calls(pageSize: 5, agentId: $agentId) { items { ${FIELDS} } } }`;
const LIVE = `subscription AgentCalls($agentId: ID) { callStatusChanged(agentId: $agentId) { ${FIELDS} } }`;
const MAKE_CALL = `mutation CallMe($input: MakeCallInput!, $idempotencyKey: String) {
  makeCall(input: $input, idempotencyKey: $idempotencyKey) { ${FIELDS} }
}`;

/** How many of the agent's latest calls the card lists. */
const SHOWN = 5;
const E164 = '^\\+[1-9][0-9]{6,14}$';

/** "Call me": places a real call from the agent to the user's own number and follows it live. */
export function TestCall(props: { agentId: string }) {
  const [to, setTo] = useState('');
  const [from, setFrom] = useState('');
  const [calls, setCalls] = useState<TestCallRow[]>([]);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();

  const put = (call: TestCallRow) =>
    setCalls((now) =>
      [call, ...now.filter((row) => row.id !== call.id)]
        .sort((a, b) => b.createdAt.localeCompare(a.createdAt))
        .slice(0, SHOWN),
    );

  useEffect(() => {
    // Subscribed before the list is read, so a change between the two is not missed.
    const stop = subscribe<{ callStatusChanged: TestCallRow }>(
      LIVE,
      { agentId: props.agentId },
      (data) => put(data.callStatusChanged),
      setError,
    );
    gql<{ calls: { items: TestCallRow[] } }>(RECENT, { agentId: props.agentId })
      .then((data) => {
        for (const call of data.calls.items.reverse()) put(call);
      })
      .catch((cause: Error) => setError(cause.message));
    return stop;
  }, [props.agentId]);

  const place = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const { makeCall } = await gql<{ makeCall: TestCallRow }>(MAKE_CALL, {
        input: { agentId: props.agentId, phoneNumber: to, sourceNumber: from, metadata: { test: true } },
        // A double submit places one call.
        idempotencyKey: newIdempotencyKey(),
      });
      put(makeCall);
    } catch (cause) {
      setError((cause as Error).message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <article class="card wide" aria-labelledby="call-me-title">
      <h2 id="call-me-title">Call me</h2>
      <p class="hint">Places a real call from this agent to your phone, to hear how it sounds.</p>
      <form class="inline-form" onSubmit={place}>
        <div class="field">
          <label for="call-your-phone-number">Your phone number</label>
          <input
            id="call-your-phone-number"
            type="tel"
            required
            pattern={E164}
            placeholder="+14155551234"
            autoComplete="tel"
            value={to}
            onInput={(event) => setTo(event.currentTarget.value.trim())}
          />
        </div>
        <div class="field">
          <label for="call-call-from">Call from</label>
          <input
            id="call-call-from"
            type="tel"
            required
            pattern={E164}
            placeholder="+14155550100"
            value={from}
            onInput={(event) => setFrom(event.currentTarget.value.trim())}
          />
        </div>
        <button type="submit" disabled={busy}>
          {busy ? 'Calling…' : 'Call me'}
        </button>
      </form>
      <ErrorNote message={error} />
      {calls.length > 0 && (
        <ul class="test-calls" aria-label="This agent's latest calls" data-testid="test-calls">
          {calls.map((call) => (
            <li key={call.id} data-call-id={call.id} data-status={call.status}>
              <Link to={`/calls/${call.id}`}>{call.phoneNumber}</Link> <StatusBadge status={call.status} />{' '}
              <span class="hint">{time(call.createdAt)}</span>
            </li>
          ))}
        </ul>
      )}
    </article>
  );
}
