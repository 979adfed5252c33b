import { randomUUID } from 'node:crypto';
import {
  AppError,
  type CreateSipTrunkBody,
  type PageOf,
  type PageQuery,
  type SipTrunk,
  type Sql,
  TRUNK_PASSWORD_NEEDS_USER,
  type TransactionSql,
  toPage,
  trunkPasswordHasUser,
  type UpdateSipTrunkBody,
} from '@voice/shared';
import { trunkRepository } from '../db/trunk-repository';
import { type TrunkFields, type TrunkRow, toSipTrunk } from '../db/trunk-rows';

/** The account's SIP trunks: create, read, change, delete. Another account's trunk is not found. */
export class TrunksApp {
  constructor(private readonly sql: Sql) {}

  async create(accountId: string, body: CreateSipTrunkBody): Promise<SipTrunk> {
    const id = randomUUID();
    const { numbers, ...rest } = body;
    const fields: TrunkFields = { ...rest, username: rest.username ?? null, password: rest.password ?? null };
    const row = await this.writing(accountId, async (tx) => {
      await assertNumbersFree(tx, accountId, id, numbers);
      if (fields.is_default) await trunkRepository.clearDefault(tx, accountId, id);
      await trunkRepository.insert(tx, accountId, id, fields);
      await trunkRepository.setNumbers(tx, accountId, id, numbers);
      return trunkRepository.find(tx, accountId, id);
    });
    return toSipTrunk(row!);
  }

  async get(accountId: string, trunkId: string): Promise<SipTrunk> {
    return toSipTrunk(await this.require(this.sql, accountId, trunkId));
  }

  async list(accountId: string, page: PageQuery): Promise<PageOf<SipTrunk>> {
    const { rows, extent } = await trunkRepository.page(this.sql, accountId, page);
    return toPage(rows.map(toSipTrunk), extent, page);
  }

  async update(accountId: string, trunkId: string, changes: UpdateSipTrunkBody): Promise<SipTrunk> {
    const row = await this.writing(accountId, async (tx) => {
      const current = await this.require(tx, accountId, trunkId, { lock: true });
      const { numbers, ...fields } = changes;
      const after = { ...current, ...fields };
      if (!trunkPasswordHasUser(after)) {
        throw AppError.validation([
          {
            loc: ['body', ...TRUNK_PASSWORD_NEEDS_USER.path],
            msg: TRUNK_PASSWORD_NEEDS_USER.message,
            type: 'custom',
          },
        ]);
      }
      if (numbers) {
        await assertNumbersFree(tx, accountId, trunkId, numbers);
        await trunkRepository.setNumbers(tx, accountId, trunkId, numbers);
      }
      if (fields.is_default) await trunkRepository.clearDefault(tx, accountId, trunkId);
      await trunkRepository.update(tx, accountId, trunkId, fields);
      return trunkRepository.find(tx, accountId, trunkId);
    });
    return toSipTrunk(row!);
  }

  async delete(accountId: string, trunkId: string): Promise<{ deleted: true }> {
    const deleted = await this.writing(accountId, (tx) => trunkRepository.delete(tx, accountId, trunkId));
    if (!deleted) throw new AppError('SIP_TRUNK_NOT_FOUND');
    return { deleted: true };
  }

  private async require(
    db: Sql | TransactionSql,
    accountId: string,
    trunkId: string,
    options: { lock?: boolean } = {},
  ): Promise<TrunkRow> {
    const row = await trunkRepository.find(db, accountId, trunkId, options);
    if (!row) throw new AppError('SIP_TRUNK_NOT_FOUND');
    return row;
  }

  /**
   * A change to the account's trunks, one at a time per account (a transaction-scoped advisory
   * lock): two writes racing for the same number or for the default then see each other's
   * result instead of failing on a unique index. Trunk changes are rare; the wait costs nothing.
   */
  private writing<T>(accountId: string, work: (tx: TransactionSql) => Promise<T>): Promise<T> {
    return this.sql.begin(async (tx) => {
      await tx`SELECT pg_advisory_xact_lock(hashtextextended(${`telephony.trunks:${accountId}`}, 0))`;
      return work(tx);
    }) as Promise<T>;
  }
}

/** A 422 naming every number of the list that another trunk of the account already holds. */
async function assertNumbersFree(
  tx: TransactionSql,
  accountId: string,
  trunkId: string,
  numbers: string[],
): Promise<void> {
  const taken = await trunkRepository.takenNumbers(tx, accountId, trunkId, numbers);
  if (taken.length === 0) return;
  const holder = new Map(taken.map((t) => [t.number, t.trunk_id]));
  throw AppError.validation(
    numbers.flatMap((number, index) => {
      const trunk = holder.get(number);
      return trunk
        ? [
            {
              loc: ['body', 'numbers', index],
              msg: `${number} already belongs to trunk ${trunk}`,
              type: 'number_taken',
            },
          ]
        : [];
    }),
  );
}
