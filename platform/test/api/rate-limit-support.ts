/**
 * Counting across a minute boundary would reset the window mid-test: start in a fresh one when
 * fewer than `seconds` are left. `seconds` is what the test needs on a loaded machine (a request
 * may take 100 ms or more there), not on a quiet one.
 */
export async function windowWithAtLeast(seconds: number): Promise<void> {
  const left = 60 - ((Date.now() / 1000) % 60);
  if (left < seconds) await new Promise((r) => setTimeout(r, left * 1000 + 200));
}
