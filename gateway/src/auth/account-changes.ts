import { PLAN_RATE_LIMITS, type Plan, type UpdateAccountBody, type ValidationIssue } from '@voice/shared';

/** The settings of an account a PATCH may change, as stored (NULL: the plan's default). */
export interface AccountSettings {
  plan: Plan;
  rate_limit_per_minute: number | null;
  max_concurrent_calls: number | null;
}

/**
 * The account's settings after `change`, or why they cannot be: the rule of creation holds for the
 * result (enterprise accounts carry their own rate limit, other plans the plan's). Moving away from
 * enterprise drops the account's own rate limit. Pure.
 */
export function applyAccountChange(
  current: AccountSettings,
  change: UpdateAccountBody,
): { ok: true; settings: AccountSettings } | { ok: false; issues: ValidationIssue[] } {
  const plan = change.plan ?? current.plan;
  const loc = ['body', 'rate_limit_per_minute'];
  let rate: number | null;
  if (plan === 'enterprise') {
    rate = change.rate_limit_per_minute ?? current.rate_limit_per_minute;
    if (rate === null) {
      return {
        ok: false,
        issues: [{ loc, msg: 'enterprise accounts need rate_limit_per_minute', type: 'missing' }],
      };
    }
  } else {
    if (change.rate_limit_per_minute !== undefined) {
      return {
        ok: false,
        issues: [
          {
            loc,
            msg: `only enterprise accounts set their own limit (free is ${PLAN_RATE_LIMITS.free}, pro is ${PLAN_RATE_LIMITS.pro} per minute)`,
            type: 'value_error',
          },
        ],
      };
    }
    rate = null;
  }
  const max =
    change.max_concurrent_calls === undefined ? current.max_concurrent_calls : change.max_concurrent_calls;
  return { ok: true, settings: { plan, rate_limit_per_minute: rate, max_concurrent_calls: max } };
}
