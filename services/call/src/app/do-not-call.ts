import {
  type AddDoNotCallBody,
  AppError,
  DO_NOT_CALL_REFUSAL,
  type DoNotCallAdded,
  type DoNotCallEntry,
  type PageOf,
  type PageQuery,
  type Sql,
  toPage,
} from '@voice/shared';
import { doNotCallRepository } from '../db/do-not-call-repository';

const notListed = () => new AppError('DO_NOT_CALL_ENTRY_NOT_FOUND');

/** Each account's do-not-call list: kept here, beside the placements it refuses. */
export class DoNotCallApp {
  constructor(private readonly sql: Sql) {}

  async add(accountId: string, body: AddDoNotCallBody): Promise<DoNotCallAdded> {
    const added = await doNotCallRepository.add(this.sql, accountId, body);
    return { added, already_listed: body.numbers.length - added };
  }

  async get(accountId: string, number: string): Promise<DoNotCallEntry> {
    const entry = await doNotCallRepository.find(this.sql, accountId, number);
    if (!entry) throw notListed();
    return entry;
  }

  /** Which of the numbers are listed (a campaign dry run checks its whole list in a few of these). */
  async checkMany(accountId: string, numbers: readonly string[]): Promise<{ listed: string[] }> {
    return { listed: await doNotCallRepository.listedAmong(this.sql, accountId, numbers) };
  }

  async remove(accountId: string, number: string): Promise<{ deleted: true }> {
    if (!(await doNotCallRepository.remove(this.sql, accountId, number))) throw notListed();
    return { deleted: true };
  }

  async list(accountId: string, query: PageQuery): Promise<PageOf<DoNotCallEntry>> {
    const { rows, extent } = await doNotCallRepository.page(this.sql, accountId, query);
    return toPage(rows, extent, query);
  }

  /** Refuses a call to a listed number with its own code (DO_NOT_CALL, 422 on the number). */
  async refuseListed(accountId: string, number: string): Promise<void> {
    if (await doNotCallRepository.listed(this.sql, accountId, number)) {
      throw new AppError('DO_NOT_CALL', [DO_NOT_CALL_REFUSAL]);
    }
  }
}
