import type { CollectedDetail } from '@voice/shared/contracts';
import { fieldList, spoken } from './text';

// Free-text details that are really codes: read back character by character, not paraphrased.
const CODE_LIKE = /(^|_)(number|id|reference|code|vin)(_|$)|_last_\w+$/;
const ADDRESS_LIKE = /(^|_)address(_|$)/;
const MONEY_LIKE = /(^|_)(budget|price|amount|income|salary|damage|assets|cost)(_|$)/;
const SCALE_LIKE = /(^|_)(rating|level|score)(_|$)/;
const BIRTH_DATE = /(^|_)birth(_|$)/;

/** How to confirm an answer back to the person, by what kind of value it is. */
export function confirmationFor(detail: CollectedDetail): string {
  switch (detail.type) {
    case 'string':
      if (CODE_LIKE.test(detail.name)) {
        return 'Read it back character by character, saying digits one at a time and spelling letters, and ask them to confirm.';
      }
      if (ADDRESS_LIKE.test(detail.name)) {
        return 'Read the full address back, with the house number digit by digit and the street name spelled if it is unusual, and ask them to confirm.';
      }
      return 'Repeat the key points back in a short paraphrase and ask whether you got it right; spell any names or unusual words.';
    case 'number':
      if (MONEY_LIKE.test(detail.name)) {
        return 'Say the amount back in words with its currency, for example "two hundred and fifty thousand dollars", and ask them to confirm; accept a range and record its midpoint only if they cannot give one figure.';
      }
      if (SCALE_LIKE.test(detail.name)) {
        return 'Say the scale first, then repeat their score back, for example "so that is a four out of five", and confirm.';
      }
      return 'Repeat the number back in words, for example "so that is three", and confirm.';
    case 'boolean':
      return 'Get a clear yes or no. If the answer is vague, ask once more in different words; record it only when it is clear.';
    case 'date':
      if (BIRTH_DATE.test(detail.name)) {
        return 'Read back the day, the month by name and the full year, for example "the fourth of March, nineteen eighty-two", and confirm.';
      }
      return 'Turn relative answers such as "next Friday" into a calendar date, then read it back with the weekday, for example "Friday the fourteenth of June", and confirm.';
    case 'datetime':
      return 'Read back the weekday, date, time and time zone, for example "Thursday the ninth of May at three thirty in the afternoon, Eastern time", and confirm.';
    case 'phone':
      return 'Read the number back digit by digit in small groups, including the country code if they gave one, and confirm.';
    case 'email':
      return 'Ask them to spell it, then spell it back letter by letter, saying "at" and "dot" for the symbols, and confirm the part after the "at" separately.';
    case 'enum':
      return 'Choose exactly one allowed value that matches what they said. If it is unclear, offer the two closest choices in plain words and let them pick; confirm in plain words, never by reading out the list.';
  }
}

function allowedValues(detail: CollectedDetail): string | null {
  if (detail.type !== 'enum' || !detail.options || detail.options.length === 0) return null;
  const values = detail.options.map((option) =>
    option.includes('_') ? `${option} (say "${spoken(option)}")` : option,
  );
  return `Allowed values: ${values.join(', ')}.`;
}

function describeDetail(detail: CollectedDetail, index: number): string {
  const need = detail.required ? 'required' : 'optional';
  const lines = [`${index + 1}. \`${detail.name}\` (${detail.type}, ${need}): ${detail.description}`];
  const allowed = allowedValues(detail);
  if (allowed) lines.push(`   ${allowed}`);
  lines.push(`   How to confirm: ${confirmationFor(detail)}`);
  return lines.join('\n');
}

/** The body of the "what to collect" section: every detail in catalogue order, required ones flagged. */
export function collectSection(details: readonly CollectedDetail[]): string {
  if (details.length === 0) {
    return 'This call type records no structured details. Keep short notes on the outcome of the call.';
  }
  const required = details.filter((detail) => detail.required).map((detail) => detail.name);
  const intro = [
    'Gather these details during the conversation, in whatever order fits it naturally. Ask for one at a time and confirm each answer before moving on. If the call metadata already holds a value, confirm it instead of asking again.',
    required.length > 0
      ? `Required: ${fieldList(required)}. The goal is not reached until you have ${required.length === 1 ? 'it' : 'each of them'}, unless the person declines to give ${required.length === 1 ? 'it' : 'them'}. Ask for the optional ones when the moment is natural.`
      : 'Every detail is optional: ask when the moment is natural.',
    'Accept "I would rather not say" for anything optional. Never ask for anything that is not on this list or in your instructions.',
  ];
  return [...intro, '', ...details.map(describeDetail)].join('\n');
}

export function collectsType(details: readonly CollectedDetail[], type: CollectedDetail['type']): boolean {
  return details.some((detail) => detail.type === type);
}

export function collectsField(details: readonly CollectedDetail[], name: string): boolean {
  return details.some((detail) => detail.name === name);
}
