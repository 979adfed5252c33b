import { z } from 'zod';
import { DateTime, E164, Uuid } from './common';
import { readableText } from './text';

/** Bounds of an add: a body past them is a 422, so nothing unbounded reaches the database. */
export const DO_NOT_CALL_LIMITS = { numbers: 100_000, reason: 500 } as const;

/**
 * The numbers of one bus message of an add (about 200 KB): well under NATS's default 1 MiB message
 * limit. A larger add goes to the call service in chunks of this size (the gateway's doNotCall.add).
 */
export const DO_NOT_CALL_CHUNK = 10_000;

/**
 * Where an entry came from. `api` and `import` are a client's to give (the default is `api`);
 * `opt_out` is the platform's own: a callee asked, during a call, not to be called again.
 */
export const DO_NOT_CALL_SOURCES = ['api', 'import', 'opt_out'] as const;
export const DoNotCallSource = z.enum(DO_NOT_CALL_SOURCES);
/** The sources a client may give an add. */
export const DO_NOT_CALL_ADD_SOURCES = ['api', 'import'] as const;
export type DoNotCallSource = z.infer<typeof DoNotCallSource>;

const describe = {
  number: 'The number not to call (E.164)',
  reason: 'Why it is listed, in words; null without one',
  source: '`api` or `import` (a client\u2019s own label), `opt_out` (the callee asked during a call)',
} as const;

export const DoNotCallEntry = z
  .object({
    number: E164.describe(describe.number),
    reason: z.string().nullable().describe(describe.reason),
    source: DoNotCallSource.describe(describe.source),
    call_id: Uuid.nullable().describe(
      'The call in which the callee opted out (source `opt_out`); null otherwise',
    ),
    created_at: DateTime.describe('When it was listed'),
  })
  .meta({
    id: 'DoNotCallEntry',
    description:
      'A number the account never calls: a call to it is refused, a campaign contact on it skipped',
  });
export type DoNotCallEntry = z.infer<typeof DoNotCallEntry>;

export const AddDoNotCallBody = z
  .object({
    numbers: z
      .array(E164)
      .min(1)
      .max(DO_NOT_CALL_LIMITS.numbers)
      .describe(
        `The numbers to list (E.164), 1 to ${DO_NOT_CALL_LIMITS.numbers.toLocaleString('en-US')}: one for a single ` +
          'add. A number listed already (or twice here) keeps its entry',
      ),
    reason: readableText(z.string().trim().min(1).max(DO_NOT_CALL_LIMITS.reason))
      .nullable()
      .default(null)
      .describe(`${describe.reason}; the same for every number of the request`),
    source: z
      .enum(DO_NOT_CALL_ADD_SOURCES)
      .default('api')
      .describe('Where the numbers came from: `api` (default) or `import`'),
  })
  .meta({ id: 'AddDoNotCall', description: 'Numbers to add to the account\u2019s do-not-call list' });
export type AddDoNotCallBody = z.infer<typeof AddDoNotCallBody>;

export const DoNotCallAdded = z
  .object({
    added: z.number().int().describe('Numbers newly listed'),
    already_listed: z
      .number()
      .int()
      .describe('Numbers of the request listed already, or sent twice (their entries are unchanged)'),
  })
  .meta({ id: 'DoNotCallAdded', description: 'What an add listed' });
export type DoNotCallAdded = z.infer<typeof DoNotCallAdded>;

/** One chunk of an add, as it travels on the bus. */
export const AddDoNotCallChunk = AddDoNotCallBody.extend({
  numbers: z.array(E164).min(1).max(DO_NOT_CALL_CHUNK),
});

/**
 * A batched check, as it travels on the bus: at most DO_NOT_CALL_CHUNK numbers a message (a
 * message of 100,000 would outgrow NATS's default 1 MiB); a caller with more sends several.
 */
export const CheckDoNotCallChunk = z.object({ numbers: z.array(E164).min(1).max(DO_NOT_CALL_CHUNK) });
/** The numbers of a check that are listed (each once). */
export const DoNotCallListed = z.object({ listed: z.array(E164) });

/** One number of the list, as a request names it. */
export const DoNotCallNumberRequest = z.object({ number: E164.describe(describe.number) });

/**
 * The refusal of a call to a listed number: its own code (the campaign service skips the contact
 * for it rather than failing it), answered as a 422 on the number.
 */
export const DO_NOT_CALL_REFUSAL = {
  loc: ['body', 'phone_number'],
  msg: 'this number is on the account\u2019s do-not-call list',
  type: 'do_not_call',
};
