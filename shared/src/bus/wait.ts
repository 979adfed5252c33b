/**
 * Waits for `work` to settle, but no longer than `ms`. Never rejects: resolves true when the work
 * settled (either way) in time, false when the time ran out. The work itself is not cancelled.
 * For shutdown paths that must not hang; to fail a caller after a deadline, use `withDeadline`
 * (db/connect), which rejects with SERVICE_TIMEOUT instead.
 */
export async function waitAtMost(work: PromiseLike<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  const settled = Promise.resolve(work).then(
    () => true as const,
    () => true as const,
  );
  try {
    return await Promise.race([settled, expired]);
  } finally {
    clearTimeout(timer);
  }
}
