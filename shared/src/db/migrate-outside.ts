import type { Sql } from './connect';

/**
 * Migrations that run outside a transaction, for what PostgreSQL will not do inside one: building
 * an index on a large table without blocking its writes (CREATE INDEX CONCURRENTLY). A file says
 * so on a line of its own:
 *
 *   -- migrate: outside-transaction
 *
 * Its statements then run one by one, each ending with `;` at the end of a line (none inside one),
 * and the file is recorded as applied after the last. A failure or crash part-way leaves the
 * statements before it done and the file unrecorded, so the next start runs the file again from
 * the top: every statement must be idempotent (IF NOT EXISTS, IF EXISTS), which the loader checks
 * for index builds. An index build that failed leaves an invalid index behind that IF NOT EXISTS
 * would take for done: such an index, named by the file's CREATE INDEX CONCURRENTLY, is dropped
 * and built again.
 *
 * A file rewritten so (an index migration that ran in a transaction before) keeps its effect and
 * names the checksum it was recorded with, so a database that applied the earlier text does not
 * run it again:
 *
 *   -- migrate: applied-as <sha256 of the earlier text>
 */

const DIRECTIVE = /^--\s*migrate:\s*(\S+)(?:\s+(\S+))?\s*$/gm;
const CREATE_CONCURRENTLY =
  /^CREATE\s+(?:UNIQUE\s+)?INDEX\s+CONCURRENTLY\s+(IF\s+NOT\s+EXISTS\s+)?("?)(\w+)\2/i;

export interface MigrationOptions {
  outsideTransaction: boolean;
  /** Checksums of earlier texts of this file: a database that recorded one of them has applied it. */
  appliedAs: string[];
}

/** The file's directives; an unknown one fails (a typo must not silently run a file in a transaction). */
export function migrationOptions(file: string, sql: string): MigrationOptions {
  const options: MigrationOptions = { outsideTransaction: false, appliedAs: [] };
  for (const [, name, value] of sql.matchAll(DIRECTIVE)) {
    if (name === 'outside-transaction' && value === undefined) options.outsideTransaction = true;
    else if (name === 'applied-as' && value && /^[0-9a-f]{64}$/.test(value)) options.appliedAs.push(value);
    else throw new Error(`migration ${file}: unknown directive "-- migrate: ${name} ${value ?? ''}"`);
  }
  if (options.outsideTransaction) {
    for (const statement of statementsOf(sql)) {
      const index = CREATE_CONCURRENTLY.exec(statement);
      if (index && !index[1]) {
        throw new Error(
          `migration ${file}: CREATE INDEX CONCURRENTLY ${index[3]} needs IF NOT EXISTS (it may run again)`,
        );
      }
    }
  }
  return options;
}

/** The file's statements: comment lines dropped, split at each `;` that ends a line. */
export function statementsOf(sql: string): string[] {
  const text = sql
    .split('\n')
    .filter((line) => !line.trimStart().startsWith('--'))
    .join('\n');
  return text
    .split(/;[ \t]*(?:\n|$)/)
    .map((statement) => statement.trim())
    .filter((statement) => statement.length > 0);
}

/** Runs the statements one by one, each in its own implicit transaction (see above). */
export async function applyOutsideTransaction(conn: Sql, schema: string, sql: string): Promise<void> {
  for (const statement of statementsOf(sql)) {
    const index = CREATE_CONCURRENTLY.exec(statement);
    // An unquoted name is folded to lower case, as PostgreSQL does.
    if (index) await dropIfInvalid(conn, schema, index[2] ? index[3]! : index[3]!.toLowerCase());
    await conn.unsafe(statement);
  }
}

/** An index of the schema left invalid by a build that did not finish: dropped, to be built again. */
async function dropIfInvalid(conn: Sql, schema: string, name: string): Promise<void> {
  const invalid = await conn`
    select 1 from pg_index i
    join pg_class c on c.oid = i.indexrelid join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = ${schema} and c.relname = ${name} and not i.indisvalid`;
  if (invalid.length > 0) await conn.unsafe(`DROP INDEX CONCURRENTLY IF EXISTS "${schema}"."${name}"`);
}
