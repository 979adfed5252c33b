/**
 * Section headings of a generated prompt. Untrusted text is always collapsed onto one line, so a
 * heading can only appear at the start of a line where the generator put it.
 */
export const SECTION = Object.freeze({
  role: 'ROLE AND GOAL',
  language: 'LANGUAGE',
  lines: 'OPENING AND CLOSING LINES',
  steps: 'CONVERSATION STEPS',
  guidelines: 'GUIDELINES FOR THIS CALL TYPE',
  collect: 'WHAT TO COLLECT',
  objections: 'OBJECTION HANDLING',
  compliance: 'COMPLIANCE',
  style: 'VOICE STYLE',
  ending: 'ENDING THE CALL',
});

export type SectionKey = keyof typeof SECTION;

/** Section order in the prompt; the model reads top to bottom, so identity and language come first. */
export const SECTION_ORDER: readonly SectionKey[] = [
  'role',
  'language',
  'lines',
  'steps',
  'guidelines',
  'collect',
  'objections',
  'compliance',
  'style',
  'ending',
];

export function headingLine(key: SectionKey): string {
  return `## ${SECTION[key]}`;
}
