import { useEffect, useState } from 'preact/hooks';
import { gql, onRateLimit, type RateLimit } from '../api';
import { keyPrefix, storedKey } from '../key';
import { ErrorNote } from '../ui';

interface Me {
  me: {
    account: { id: string; name: string; plan: string; rateLimitPerMinute: number };
    key: { id: string; scopes: string[] };
    calls: { maxConcurrentCalls: number; activeCalls: number; waitingCalls: number };
  };
}

const ME = `query Account { me {
  account { id name plan rateLimitPerMinute }
  key { id scopes }
  calls { maxConcurrentCalls activeCalls waitingCalls }
} }`;

/** How often the page asks again for the account's concurrency while it is open. */
const REFRESH_MS = 5000;

/** The key in use and its scopes, the rate-limit headroom, the account's calls in flight. */
export function AccountPage() {
  const [me, setMe] = useState<Me['me']>();
  const [rate, setRate] = useState<RateLimit>();
  const [error, setError] = useState<string>();

  useEffect(() => onRateLimit(setRate), []);
  useEffect(() => {
    let stopped = false;
    const load = () =>
      gql<Me>(ME)
        .then((data) => {
          if (stopped) return;
          setMe(data.me);
          setError(undefined);
        })
        .catch((cause: Error) => {
          if (!stopped) setError(cause.message);
        });
    void load();
    const timer = setInterval(load, REFRESH_MS);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, []);

  return (
    <section aria-labelledby="account-title">
      <h1 id="account-title">Account</h1>
      <ErrorNote message={error} />
      {me ? (
        <div class="cards">
          <article class="card" aria-labelledby="key-title">
            <h2 id="key-title">API key</h2>
            <dl>
              <dt>Key</dt>
              <dd>
                <code data-testid="key-prefix">{keyPrefix(storedKey())}</code>
              </dd>
              <dt>Key id</dt>
              <dd>
                <code>{me.key.id}</code>
              </dd>
              <dt>Scopes</dt>
              <dd>
                <ul class="chips" aria-label="Scopes" data-testid="scopes">
                  {me.key.scopes.map((scope) => (
                    <li key={scope}>{scope.toLowerCase()}</li>
                  ))}
                </ul>
              </dd>
            </dl>
          </article>
          <article class="card" aria-labelledby="account-card-title">
            <h2 id="account-card-title">{me.account.name}</h2>
            <dl>
              <dt>Plan</dt>
              <dd>{me.account.plan.toLowerCase()}</dd>
              <dt>Rate limit</dt>
              <dd>{me.account.rateLimitPerMinute} requests a minute</dd>
            </dl>
          </article>
          <article class="card" aria-labelledby="headroom-title">
            <h2 id="headroom-title">Rate-limit headroom</h2>
            {rate ? (
              <>
                <Meter
                  label="Requests left this window"
                  value={rate.remaining}
                  max={rate.limit}
                  testId="rate-remaining"
                />
                <p class="hint">Window resets at {new Date(rate.reset * 1000).toLocaleTimeString()}.</p>
              </>
            ) : (
              <p class="hint">Shown after the first answer.</p>
            )}
          </article>
          <article class="card" aria-labelledby="concurrency-title">
            <h2 id="concurrency-title">Concurrency</h2>
            <Meter
              label="Calls in flight"
              value={me.calls.activeCalls}
              max={me.calls.maxConcurrentCalls}
              testId="active-calls"
            />
            <p class="hint">{me.calls.waitingCalls} waiting for a free line.</p>
          </article>
        </div>
      ) : (
        !error && <p aria-live="polite">Loading…</p>
      )}
    </section>
  );
}

function Meter(props: { label: string; value: number; max: number; testId: string }) {
  return (
    <div class="meter-row">
      <span>{props.label}</span>
      <meter min={0} max={Math.max(1, props.max)} value={props.value} aria-label={props.label} />
      <strong data-testid={props.testId}>
        {props.value} / {props.max}
      </strong>
    </div>
  );
}
