import { type AccountLoad, type Logger, PLAN_MAX_CONCURRENT_CALLS, type Sql } from '@voice/shared';
import { accountLimitRepository } from '../db/account-limit-repository';

export interface AccountLimitsOptions {
  sql: Sql;
  log: Logger;
  /** A stored limit changed: the dial queue tries the account's waiting calls again. */
  changed: (accountId: string) => void;
  /** Logs (once per account) that an account's limit never arrived. */
  unknown: (accountId: string) => void;
}

/**
 * Accounts' concurrent-call limits as the gateway pushes them, and each account's load. The
 * limit itself is enforced where calls are dialed (callRepository.markDialed).
 */
export class AccountLimitsApp {
  constructor(private readonly options: AccountLimitsOptions) {}

  async set(request: {
    account_id: string;
    max_concurrent_calls: number;
    changed_at: string;
  }): Promise<{ account_id: string; max_concurrent_calls: number; applied: boolean }> {
    const applied = await accountLimitRepository.set(
      this.options.sql,
      request.account_id,
      request.max_concurrent_calls,
      new Date(request.changed_at),
    );
    if (applied) {
      this.options.log.info(
        { account_id: request.account_id, max_concurrent_calls: request.max_concurrent_calls },
        'account concurrent-call limit stored',
      );
      this.options.changed(request.account_id);
    }
    return { account_id: request.account_id, max_concurrent_calls: request.max_concurrent_calls, applied };
  }

  async load(accountId: string): Promise<AccountLoad> {
    const { known, ...load } = await accountLimitRepository.load(
      this.options.sql,
      accountId,
      PLAN_MAX_CONCURRENT_CALLS.free,
    );
    if (!known) this.options.unknown(accountId);
    return load;
  }
}
