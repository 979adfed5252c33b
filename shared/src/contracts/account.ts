import { z } from 'zod';
import { DateTime, Uuid } from './common';
import { nameText } from './text';

export const PLANS = ['free', 'pro', 'enterprise'] as const;
export const Plan = z.enum(PLANS);
export type Plan = z.infer<typeof Plan>;

/** Requests per minute per API key, by plan; enterprise accounts carry their own number. */
export const PLAN_RATE_LIMITS: Record<Exclude<Plan, 'enterprise'>, number> = { free: 60, pro: 300 };
export const PUBLIC_RATE_LIMIT_PER_IP = 300;

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
    created_at: DateTime,
  })
  .meta({ id: 'Account' });
export type Account = z.infer<typeof Account>;

export const CreateAccountBody = z
  .object({
    name: nameText(100),
    plan: Plan.default('free'),
    rate_limit_per_minute: RateLimitPerMinute.optional(),
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
