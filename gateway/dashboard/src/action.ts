import { useState } from 'preact/hooks';

/**
 * A card's actions (save, restore, redeliver, ...): one at a time (`busy` disables the buttons), each
 * followed by `reload`; the card says what was done (`status`) or why it failed (`error`).
 */
export function useAction(reload: () => Promise<unknown>) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const [status, setStatus] = useState<string>();
  const run = async (work: () => Promise<unknown>, done: string) => {
    setBusy(true);
    setError(undefined);
    setStatus(undefined);
    try {
      await work();
      await reload();
      setStatus(done);
    } catch (cause) {
      setError((cause as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, setError, status, run };
}
