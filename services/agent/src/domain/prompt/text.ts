/**
 * Helpers for putting text into the prompt. Everything a customer typed (agent name, description,
 * opening and closing lines) goes through `quoted` so it stays one quoted line of data.
 */

// Line breaks of every kind (including the Unicode separators some tokenisers treat as newlines)
// and other control characters; collapsing them keeps untrusted text from starting a new line.
const LINE_BREAKS_AND_CONTROLS = /[\p{Cc}\u2028\u2029]+/gu;
// Bidirectional overrides can make text read differently from how it is stored.
const BIDI_CONTROLS = /[\u202a-\u202e\u2066-\u2069]/g;

/** One line of plain text: controls and line breaks become single spaces, runs of spaces collapse. */
export function singleLine(text: string): string {
  return text.replace(BIDI_CONTROLS, '').replace(LINE_BREAKS_AND_CONTROLS, ' ').replace(/\s+/g, ' ').trim();
}

/**
 * Untrusted text as a double-quoted literal. Inner double quotes become single quotes so the
 * literal cannot be closed early; spoken aloud the two are the same.
 */
export function quoted(text: string): string {
  return `"${singleLine(text).replace(/"/g, "'")}"`;
}

/** Catalogue identifiers such as `this_week` or `real_estate`, as words a person would say. */
export function spoken(identifier: string): string {
  return identifier.replace(/_/g, ' ');
}

export function numbered(items: readonly string[]): string {
  return items.map((item, index) => `${index + 1}. ${item}`).join('\n');
}

export function bulleted(items: readonly string[]): string {
  return items.map((item) => `- ${item}`).join('\n');
}

/** "a", "a and b", "a, b and c", each wrapped in backticks as a field name. */
export function fieldList(names: readonly string[]): string {
  const marked = names.map((name) => `\`${name}\``);
  if (marked.length <= 1) return marked.join('');
  return `${marked.slice(0, -1).join(', ')} and ${marked[marked.length - 1]}`;
}
