/** One line of a line diff: kept in both, only in the older text, or only in the newer. */
export interface DiffLine {
  kind: 'same' | 'removed' | 'added';
  text: string;
}

/** Above this many line pairs the LCS table would be too big for a page; the diff says so instead. */
export const MAX_DIFF_CELLS = 4_000_000;

/**
 * A line diff by longest common subsequence (O(n·m) table). Prompts are a few hundred lines at most,
 * so this is instant and costs no dependency (docs/dashboard.md). Undefined when the texts are too big.
 */
export function diffLines(older: string, newer: string): DiffLine[] | undefined {
  const a = older.split('\n');
  const b = newer.split('\n');
  const n = a.length;
  const m = b.length;
  if (n * m > MAX_DIFF_CELLS) return undefined;
  // lcs[i][j]: the LCS length of a[i..] and b[j..], one flat row-major table.
  const width = m + 1;
  const lcs = new Uint32Array((n + 1) * width);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i * width + j] =
        a[i] === b[j]
          ? (lcs[(i + 1) * width + j + 1] ?? 0) + 1
          : Math.max(lcs[(i + 1) * width + j] ?? 0, lcs[i * width + j + 1] ?? 0);
    }
  }
  const out: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[i] === b[j]) {
      out.push({ kind: 'same', text: a[i] ?? '' });
      i++;
      j++;
    } else if ((lcs[(i + 1) * width + j] ?? 0) >= (lcs[i * width + j + 1] ?? 0)) {
      out.push({ kind: 'removed', text: a[i++] ?? '' });
    } else {
      out.push({ kind: 'added', text: b[j++] ?? '' });
    }
  }
  while (i < n) out.push({ kind: 'removed', text: a[i++] ?? '' });
  while (j < m) out.push({ kind: 'added', text: b[j++] ?? '' });
  return out;
}
