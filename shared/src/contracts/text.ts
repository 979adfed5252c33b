import { z } from 'zod';

/** Characters that draw nothing: whitespace, controls, format characters (ZWSP, bidi marks), fillers. */
const INVISIBLE = /^[\p{White_Space}\p{C}\p{Z}\u115F\u1160\u2800\u3164\uFFA0]*$/u;
/** C0 controls, DEL and C1 controls. */
const CONTROL = /\p{Cc}/u;
/**
 * Bidirectional embeddings, overrides and isolates (U+202A to U+202E, U+2066 to U+2069): they make
 * text display in another order than it is stored, so a name could pass for another.
 */
const BIDI_CONTROL = /[\u202a-\u202e\u2066-\u2069]/u;

function textRule(allow: string, refuseBidi: boolean) {
  const allowed = allow.length > 0 ? ` other than ${JSON.stringify(allow).slice(1, -1)}` : '';
  return (text: string, ctx: z.RefinementCtx) => {
    if ([...text].some((char) => CONTROL.test(char) && !allow.includes(char))) {
      ctx.addIssue({ code: 'custom', message: `must not contain control characters${allowed}` });
    } else if (text.length > 0 && INVISIBLE.test(text)) {
      ctx.addIssue({ code: 'custom', message: 'must contain at least one visible character' });
    } else if (refuseBidi && BIDI_CONTROL.test(text)) {
      ctx.addIssue({
        code: 'custom',
        message: 'must not contain bidirectional control characters (U+202A to U+202E, U+2066 to U+2069)',
      });
    }
  };
}

/**
 * Refuses text a person could not read: only invisible characters (e.g. "\u200b", "\u202e"), or
 * control characters (ESC, ...) other than those `allow` lists (tab and line feed for multi-line
 * text). One issue at most, and none for an empty value (`.min(1)` reports that). NUL and unpaired
 * surrogates are refused for every field where input is parsed (`assertSafeInput`).
 */
export function readableText(schema: z.ZodString, allow = ''): z.ZodString {
  return schema.superRefine(textRule(allow, false));
}

/**
 * A name or label (of an agent, a campaign, an account, an API key, a prompt version): readable
 * text on one line, trimmed, 1 to `max` characters, shown in the order it is stored (no bidi
 * controls).
 */
export function nameText(max: number): z.ZodString {
  return z.string().trim().min(1).max(max).superRefine(textRule('', true));
}
