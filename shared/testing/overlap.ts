/**
 * The most intervals open at one moment: calls dialed and not ended, say. An interval without an
 * end is open to the last moment; without a start it is left out. An end and a start at the same
 * instant count the end first (the slot was free for the start).
 */
export function mostAtOnce(intervals: readonly { start: Date | null; end: Date | null }[]): number {
  const edges: [number, number][] = [];
  for (const { start, end } of intervals) {
    if (!start) continue;
    edges.push([start.getTime(), 1]);
    if (end) edges.push([end.getTime(), -1]);
  }
  edges.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let open = 0;
  let most = 0;
  for (const [, step] of edges) {
    open += step;
    most = Math.max(most, open);
  }
  return most;
}
