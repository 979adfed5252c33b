import { AccountLoad, AppError, CALL, Empty, Plan, Scope, Uuid } from '@voice/shared';
import { z } from 'zod';
import type { Operation, Unnamed } from './operation';

export const Me = z
  .object({
    account: z
      .object({
        id: Uuid.describe('The account'),
        name: z.string().describe('Its name'),
        plan: Plan.describe('Its plan'),
        rate_limit_per_minute: z.number().int().describe('Requests a minute the key may make'),
      })
      .describe('The account the key belongs to'),
    key: z
      .object({
        id: Uuid.describe('The key (not its secret)'),
        scopes: z.array(Scope).describe('What the key may do'),
      })
      .describe('The key itself'),
    calls: AccountLoad.describe(
      'The account’s calls now: its limit of calls dialed at once, those dialed and not ended, and those waiting in initializing for a slot',
    ),
  })
  .meta({
    id: 'Me',
    description: 'The calling API key: its account, scopes and current call load (beyond the spec)',
  });
export type Me = z.infer<typeof Me>;

/** Beyond the spec: which account and scopes the calling key carries. Any valid key may ask. */
export const me: Unnamed<Operation<typeof Empty, Me>> = {
  graphql: 'Query.me',
  graphqlField: {
    type: 'Me!',
    description: 'The account, scopes and current call load of the calling API key (beyond the spec).',
  },
  // Lets a developer check which account and scopes a key carries.
  rest: {
    method: 'GET',
    url: '/v1/me',
    tags: ['System'],
    summary: 'The account, scopes and call load of the calling API key (beyond the spec)',
    status: 200,
    answers:
      'The key\u2019s account, its rate limit, the key\u2019s scopes, and the account\u2019s calls: its ' +
      'max_concurrent_calls, calls dialed now and calls waiting for a slot',
    errors: [401],
  },
  scope: 'any-key',
  input: Empty,
  reply: Me,
  run: async (deps, _input, context, principal) => {
    if (!principal) throw new AppError('UNAUTHORIZED');
    // Asked together: the account from the gateway's database, its load from the call service.
    const [account, calls] = await Promise.all([
      deps.accounts.getAccount(principal.accountId),
      deps.client.call(CALL.accountLoad, {}, { ...context, accountId: principal.accountId }),
    ]);
    return {
      account: {
        id: account.id,
        name: account.name,
        plan: account.plan,
        rate_limit_per_minute: principal.rateLimitPerMinute,
      },
      key: { id: principal.keyId, scopes: [...principal.scopes] },
      calls,
    };
  },
};
