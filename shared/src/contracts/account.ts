import { z } from 'zod';
import { DateTime, Uuid } from './common';
import { nameText } from './text';

export const PLANS = ['free', 'pro', 'enterprise'] as const;
export const Plan = z.enum(PLANS);
export type Plan = z.infer<typeof Plan>;

/** Requests per minute per API key, by plan; enterprise accounts carry their own number. */
export const PLAN_RATE_LIMITS: Record<Exclude<Plan, 'enterprise'>, number> = { free: 60, pro: 300 };
export const PUBLIC_RATE_LIMIT_PER_IP = 300;

/**
 * Calls an account may have dialed and not yet ended at once, by plan, unless an operator set the
 * account's own number (1..10,000). Calls over it wait in `initializing` and are dialed as slots
 * free: never refused for capacity.
 */
export const PLAN_MAX_CONCURRENT_CALLS: Record<Plan, number> = { free: 2, pro: 20, enterprise: 200 };
export const MAX_CONCURRENT_CALLS_LIMIT = 10_000;
export const MaxConcurrentCalls = z.number().int().min(1).max(MAX_CONCURRENT_CALLS_LIMIT);

/** The SIP trunk scopes (`/v1/sip-trunks`): reading trunks, and adding, changing or removing them. */
export const TRUNK_SCOPES = ['trunks:read', 'trunks:write'] as const;

/** Every scope a key may hold; a key created without a list holds them all. */
export const SCOPES = [
  'agents:read',
  'agents:write',
  'calls:read',
  'calls:write',
  'campaigns:read',
  'campaigns:write',
  ...TRUNK_SCOPES,
] as const;
export const Scope = z.enum(SCOPES);
export type Scope = z.infer<typeof Scope>;

export const RateLimitPerMinute = z.number().int().min(1).max(1_000_000);

export const Account = z
  .object({
    id: Uuid,
    name: z.string(),
    plan: Plan,
    rate_limit_per_minute: z.number().int(),
    max_concurrent_calls: z
      .number()
      .int()
      .describe('Calls dialed at once at most (the plan default unless set); more wait in initializing'),
    created_at: DateTime,
  })
  .meta({ id: 'Account' });
export type Account = z.infer<typeof Account>;

export const CreateAccountBody = z
  .object({
    name: nameText(100),
    plan: Plan.default('free'),
    rate_limit_per_minute: RateLimitPerMinute.optional(),
    /** Omitted: the plan's default (free 2, pro 20, enterprise 200). */
    max_concurrent_calls: MaxConcurrentCalls.optional(),
  })
  .refine((b) => b.plan !== 'enterprise' || b.rate_limit_per_minute !== undefined, {
    message: 'enterprise accounts need rate_limit_per_minute',
    path: ['rate_limit_per_minute'],
  })
  .refine((b) => b.plan === 'enterprise' || b.rate_limit_per_minute === undefined, {
    message: 'only enterprise accounts set their own limit (free is 60, pro is 300 per minute)',
    path: ['rate_limit_per_minute'],
  });
export type CreateAccountBody = z.infer<typeof CreateAccountBody>;

/**
 * An operator's change of an account: any of its plan, rate limit and concurrent calls. A null
 * `max_concurrent_calls` goes back to the plan's default. The rate limit rule of creation holds for
 * the result: enterprise accounts carry their own number, other plans the plan's (a move away from
 * enterprise drops the account's own number).
 */
export const UpdateAccountBody = z
  .object({
    plan: Plan.optional(),
    rate_limit_per_minute: RateLimitPerMinute.optional(),
    max_concurrent_calls: MaxConcurrentCalls.nullable().optional(),
  })
  .refine((b) => Object.values(b).some((v) => v !== undefined), {
    message: 'nothing to change: give plan, rate_limit_per_minute or max_concurrent_calls',
  })
  .meta({ id: 'UpdateAccount' });
export type UpdateAccountBody = z.infer<typeof UpdateAccountBody>;

/** An account's calls now, as the call service counts them across all its instances. */
export const AccountLoad = z.object({
  max_concurrent_calls: z.number().int().describe('Calls dialed at once at most'),
  active_calls: z.number().int().describe('Calls dialed and not yet ended'),
  waiting_calls: z.number().int().describe('Calls accepted that wait in initializing for a free slot'),
});
export type AccountLoad = z.infer<typeof AccountLoad>;

export const ApiKeyInfo = z
  .object({
    id: Uuid,
    account_id: Uuid,
    name: z.string().nullable(),
    prefix: z.string(),
    scopes: z.array(Scope),
    created_at: DateTime,
    revoked_at: DateTime.nullable(),
  })
  .meta({ id: 'ApiKey' });
export type ApiKeyInfo = z.infer<typeof ApiKeyInfo>;

/** The create response: the only time the key itself is ever shown. */
export const CreatedApiKey = z
  .object({
    id: Uuid,
    key: z.string(),
    scopes: z.array(Scope),
    account_id: Uuid,
    name: z.string().nullable(),
    created_at: DateTime,
  })
  .meta({ id: 'CreatedApiKey' });
export type CreatedApiKey = z.infer<typeof CreatedApiKey>;

/** No body at all is a key with full access, as the docs promise. */
export const CreateApiKeyBody = z.preprocess(
  (body) => body ?? {},
  z.object({
    name: nameText(100).optional(),
    /** Omitted = full access (every scope). */
    scopes: z.array(Scope).min(1).optional(),
  }),
);
export type CreateApiKeyBody = z.infer<typeof CreateApiKeyBody>;

/** The authenticated caller, as every service sees it. */
export interface Principal {
  accountId: string;
  keyId: string;
  scopes: readonly Scope[];
  plan: Plan;
  rateLimitPerMinute: number;
}
