import { useState } from 'preact/hooks';
import { AuthError, gql } from '../api';
import { normaliseKey } from '../key';

/**
 * Sign-in with an API key: the key is checked with `me` before it is kept, so a refused key is
 * said at once, with the server's reason.
 */
export function SignIn(props: { onSignedIn: (key: string) => void; notice: string | undefined }) {
  const [typed, setTyped] = useState('');
  const [error, setError] = useState<string | undefined>(props.notice);
  const [busy, setBusy] = useState(false);

  async function submit(event: Event) {
    event.preventDefault();
    const key = normaliseKey(typed);
    if (!key) {
      setError('Enter an API key.');
      return;
    }
    setBusy(true);
    setError(undefined);
    try {
      await gql('query SignIn { me { key { id } } }', {}, key);
      props.onSignedIn(key);
    } catch (cause) {
      setError(
        cause instanceof AuthError
          ? `This API key was refused: ${cause.message}. Check that you copied the whole key and that it has not been revoked.`
          : `Could not sign in: ${cause instanceof Error ? cause.message : String(cause)}`,
      );
    } finally {
      setBusy(false);
    }
  }

  return (
    <main id="main" class="sign-in">
      <h1>Voice platform dashboard</h1>
      <form onSubmit={submit} aria-describedby="key-help">
        <label for="api-key">API key</label>
        <input
          id="api-key"
          name="api-key"
          type="password"
          autocomplete="off"
          spellcheck={false}
          value={typed}
          onInput={(event) => setTyped(event.currentTarget.value)}
          aria-invalid={error ? true : undefined}
          aria-errormessage={error ? 'sign-in-error' : undefined}
        />
        <p id="key-help" class="hint">
          The key is kept in this tab only (sessionStorage) and sent as a Bearer token.
        </p>
        <button type="submit" disabled={busy}>
          {busy ? 'Checking…' : 'Sign in'}
        </button>
        {error ? (
          <p id="sign-in-error" class="error" role="alert">
            {error}
          </p>
        ) : null}
      </form>
    </main>
  );
}
