import { z } from 'zod';
import { DateTime, E164, Uuid } from './common';
import { parseSipTrunkUri, SIP_URI_MAX } from './sip-uri';
import { nameText, readableText } from './text';

export const SIP_CODECS = ['PCMU', 'PCMA'] as const;
export const SipCodec = z.enum(SIP_CODECS);
export type SipCodec = z.infer<typeof SipCodec>;

/** Bounds of a trunk's fields: a body past them is a 422, so nothing unbounded reaches the database. */
export const SIP_TRUNK_LIMITS = {
  numbers: 1000,
  username: 128,
  password: 256,
  maxConcurrentCalls: 10_000,
  callsPerSecond: 1000,
  ringTimeoutSeconds: { min: 5, max: 300, default: 30 },
} as const;

export const SipTrunkUri = z
  .string()
  .trim()
  .max(SIP_URI_MAX)
  .superRefine((text, ctx) => {
    const parsed = parseSipTrunkUri(text);
    if (!parsed.ok) ctx.addIssue({ code: 'custom', message: parsed.message });
  })
  .meta({ example: 'sip:trunk.example.com:5060;transport=udp' });

const Username = readableText(z.string().min(1).max(SIP_TRUNK_LIMITS.username));
const Password = z.string().min(1, 'must not be empty').max(SIP_TRUNK_LIMITS.password);

const Numbers = z
  .array(E164)
  .max(SIP_TRUNK_LIMITS.numbers)
  .refine((numbers) => new Set(numbers).size === numbers.length, 'must not list a number twice');

const Codecs = z
  .array(SipCodec)
  .min(1)
  .max(SIP_CODECS.length)
  .refine((codecs) => new Set(codecs).size === codecs.length, 'must not list a codec twice');

const MaxConcurrentCalls = z.number().int().min(1).max(SIP_TRUNK_LIMITS.maxConcurrentCalls);
const CallsPerSecond = z.number().min(0.1).max(SIP_TRUNK_LIMITS.callsPerSecond);
const RingTimeout = z
  .number()
  .int()
  .min(SIP_TRUNK_LIMITS.ringTimeoutSeconds.min)
  .max(SIP_TRUNK_LIMITS.ringTimeoutSeconds.max);

const describe = {
  name: 'Display name',
  uri: 'Where calls are sent: sip:host[:port][;transport=udp|tcp] (port 5060 and udp when omitted)',
  username: 'User name for digest authentication (401/407) with the trunk; null without one',
  numbers:
    'Caller ids (E.164) this trunk may present: a call whose source_number is listed goes out through it. A ' +
    'number belongs to at most one trunk of an account',
  is_default: 'Whether calls from numbers no trunk lists go out through this trunk (one per account)',
  max_concurrent_calls: 'Calls it carries at once; further calls wait for one to end. null: no limit',
  calls_per_second: 'Calls started through it per second, evenly paced; null: no limit',
  ring_timeout_seconds: 'How long a call may ring before it is cancelled (no_answer)',
  codecs: 'Audio codecs offered to the trunk, in order of preference',
} as const;

/** The latest keep-alive (SIP OPTIONS) the telephony service sent the trunk, about every 30 s. */
export const SipTrunkHealth = z
  .object({
    status: z
      .enum(['reachable', 'unreachable', 'unknown'])
      .describe(
        '`reachable`: it answered the last keep-alive (any final response but 408 and 5xx); `unreachable`: it did ' +
          'not, or answered 408 or 5xx; `unknown`: not checked yet',
      ),
    checked_at: DateTime.nullable().describe('When it was last checked; null before the first check'),
    latency_ms: z.number().int().nullable().describe('How long it took to answer; null when unknown'),
    sip_code: z.number().int().nullable().describe('The status code of its answer; null when none came'),
    detail: z.string().nullable().describe('Why it is unreachable, in words; null otherwise'),
  })
  .meta({ id: 'SipTrunkHealth' });
export type SipTrunkHealth = z.infer<typeof SipTrunkHealth>;

/** Trunks of every account by their latest keep-alive: counts only, as public health shows them. */
export const TrunkHealthSummary = z
  .object({
    total: z.number().int().describe('SIP trunks of every account'),
    reachable: z.number().int().describe('Trunks that answered their last keep-alive'),
    unreachable: z.number().int().describe('Trunks that did not (or answered 408 or 5xx)'),
    unknown: z.number().int().describe('Trunks not checked yet'),
  })
  .meta({ id: 'TrunkHealthSummary' });
export type TrunkHealthSummary = z.infer<typeof TrunkHealthSummary>;

/** A SIP trunk as the API shows it: the password itself never leaves the telephony service. */
export const SipTrunk = z
  .object({
    id: Uuid.describe('The trunk\u2019s id'),
    name: z.string().describe(describe.name),
    uri: z.string().describe(describe.uri),
    username: z.string().nullable().describe(describe.username),
    has_password: z.boolean().describe('Whether a password is stored (it is never returned)'),
    numbers: z.array(E164).describe(describe.numbers),
    is_default: z.boolean().describe(describe.is_default),
    max_concurrent_calls: z.number().int().nullable().describe(describe.max_concurrent_calls),
    calls_per_second: z.number().nullable().describe(describe.calls_per_second),
    ring_timeout_seconds: z.number().int().describe(describe.ring_timeout_seconds),
    codecs: z.array(SipCodec).describe(describe.codecs),
    health: SipTrunkHealth.describe('Whether the trunk answers the telephony service’s keep-alives'),
    created_at: DateTime.describe('When it was created'),
    updated_at: DateTime.describe('When it last changed'),
  })
  .meta({ id: 'SipTrunk', description: 'A SIP trunk the account\u2019s calls go out through' });
export type SipTrunk = z.infer<typeof SipTrunk>;

/** Digest authentication answers with both: a password alone could never be used. */
export const trunkPasswordHasUser = (trunk: { username?: string | null; password?: string | null }) =>
  !trunk.password || !!trunk.username;
export const TRUNK_PASSWORD_NEEDS_USER = { message: 'a password needs a username', path: ['username'] };

export const CreateSipTrunkBody = z
  .object({
    name: nameText(100).describe(describe.name),
    uri: SipTrunkUri.describe(describe.uri),
    username: Username.nullable().optional().describe(describe.username),
    password: Password.nullable()
      .optional()
      .describe('Password for digest authentication; write-only (has_password says whether one is set)'),
    numbers: Numbers.default([]).describe(describe.numbers),
    is_default: z
      .boolean()
      .default(false)
      .describe(`${describe.is_default}; true makes it the default in place of the current one`),
    max_concurrent_calls: MaxConcurrentCalls.nullable().default(null).describe(describe.max_concurrent_calls),
    calls_per_second: CallsPerSecond.nullable().default(null).describe(describe.calls_per_second),
    ring_timeout_seconds: RingTimeout.default(SIP_TRUNK_LIMITS.ringTimeoutSeconds.default).describe(
      describe.ring_timeout_seconds,
    ),
    codecs: Codecs.default(['PCMU', 'PCMA']).describe(describe.codecs),
  })
  .refine(trunkPasswordHasUser, TRUNK_PASSWORD_NEEDS_USER)
  .meta({ id: 'CreateSipTrunk', description: 'A SIP trunk to add' });
export type CreateSipTrunkBody = z.infer<typeof CreateSipTrunkBody>;

export const UpdateSipTrunkBody = z
  .object({
    name: nameText(100).describe(describe.name),
    uri: SipTrunkUri.describe(describe.uri),
    username: Username.nullable().describe('`null` removes it (a stored password must then be removed too)'),
    password: Password.nullable().describe('Omitted: the stored password is kept; `null`: removed'),
    numbers: Numbers.describe('The whole new list (it replaces the current one)'),
    is_default: z.boolean().describe('true makes it the account\u2019s default in place of the current one'),
    max_concurrent_calls: MaxConcurrentCalls.nullable().describe(describe.max_concurrent_calls),
    calls_per_second: CallsPerSecond.nullable().describe(describe.calls_per_second),
    ring_timeout_seconds: RingTimeout.describe(describe.ring_timeout_seconds),
    codecs: Codecs.describe(describe.codecs),
  })
  .partial()
  .meta({ id: 'UpdateSipTrunk', description: 'Changes to a SIP trunk: omitted fields keep their value' });
export type UpdateSipTrunkBody = z.infer<typeof UpdateSipTrunkBody>;

/** How `telephony.route` chose: a trunk listing the number, the default trunk, or no trunk at all. */
export const ROUTE_MATCHES = ['source_number', 'default_trunk', 'simulated'] as const;

export const TrunkRoute = z
  .discriminatedUnion('carrier', [
    z.object({
      carrier: z.literal('sip'),
      matched: z.enum(['source_number', 'default_trunk']),
      trunk: SipTrunk,
    }),
    z.object({ carrier: z.literal('simulated'), matched: z.literal('simulated'), trunk: z.null() }),
  ])
  .meta({ id: 'TrunkRoute', description: 'The carrier a call from a source number goes out through' });
export type TrunkRoute = z.infer<typeof TrunkRoute>;
