/**
 * The total behind a page whose rows carry the window count (`count(*) OVER () AS total`). A page
 * past the last one has no rows to carry it, so only then is the total counted on its own.
 */
export async function pageTotal(
  rows: readonly { total: number }[],
  countAll: () => PromiseLike<readonly { n: number }[]>,
): Promise<number> {
  if (rows.length > 0) return rows[0]!.total;
  const [row] = await countAll();
  return row?.n ?? 0;
}
