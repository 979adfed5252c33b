import type { SipConversation } from '@voice/shared/contracts';
import { type Callee, type Metadata, metadataValue } from './callee';
import type { Plan } from './plan';
import { purposeOf } from './questions';
import { spokenDigits } from './spoken';
import { clip, joinSpoken } from './text';

// The agent's own lines (start_flow, end_flow) filled in for this callee, and the voicemail message.

const PLACEHOLDER = /\{\{?\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}?/g;
/** Longest metadata value put into a spoken line. */
const MAX_FILLED = 60;

function placeholderValue(key: string, callee: Callee, metadata: Metadata): string | null {
  const k = key.toLowerCase();
  if (k === 'name' || k === 'first_name' || k === 'contact_name') return callee.firstName;
  if (k === 'full_name') return callee.fullName;
  const value = metadataValue(metadata, k);
  if (typeof value === 'string' && value.trim() !== '') return clip(value, MAX_FILLED);
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return null;
}

/**
 * `{first_name}`-style placeholders filled from the metadata; one without a value is left out
 * along with the space before it ("Hi {name}, this is Riley" -> "Hi, this is Riley").
 */
export function fillPlaceholders(line: string, callee: Callee, metadata: Metadata): string {
  return line
    .replace(/\s*\{\{?\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}?/g, (m, key: string) => {
      const value = placeholderValue(key, callee, metadata);
      return value === null ? '' : m.replace(/\{.*$/, () => value);
    })
    .replace(/\s+([,.!?])/g, '$1')
    .replace(/^[,.]\s*/, '')
    .replace(/\s{2,}/g, ' ')
    .trim();
}

const GREETING = /^(hi|hello|hey|good (morning|afternoon|evening))\b/i;

/**
 * The opening line for this callee: placeholders filled, or, when the flow has none and the callee's
 * name is known, the name put after its greeting ("Hi, this is Riley" -> "Hi Jordan, this is Riley")
 * or a "Hi Jordan." before it.
 */
export function openingLine(startFlow: string, callee: Callee, metadata: Metadata): string {
  const hadPlaceholder = new RegExp(PLACEHOLDER.source).test(startFlow);
  const filled = fillPlaceholders(startFlow, callee, metadata);
  const name = callee.firstName;
  if (hadPlaceholder || !name || filled.toLowerCase().includes(name.toLowerCase())) return filled;
  const greeting = GREETING.exec(filled);
  if (greeting) {
    const rest = filled.slice(greeting[0].length).replace(/^[\s,!.]*/, '');
    return rest === '' ? `${greeting[0]} ${name}!` : `${greeting[0]} ${name}, ${rest}`;
  }
  return joinSpoken(`Hi ${name}`, filled);
}

/** The closing line for this callee; a plain goodbye when the agent has none. */
export function closingLine(endFlow: string, callee: Callee, metadata: Metadata): string {
  const filled = fillPlaceholders(endFlow, callee, metadata);
  return filled === '' ? 'Thank you for your time. Goodbye.' : filled;
}

/**
 * The message left after an answering machine's beep: who calls, why (short), and the number to
 * call back on, digit by digit and twice.
 */
export function voicemailMessage(plan: Pick<Plan, 'context' | 'callee'>): string {
  const { conversation, source_number: sourceNumber } = plan.context;
  const { callee } = plan;
  const hello = callee.firstName
    ? `Hi ${callee.firstName}, this is ${agentName(conversation)}`
    : `Hi, this is ${agentName(conversation)}`;
  const purpose = purposeOf(conversation.goal);
  const digits = spokenDigits(sourceNumber);
  return joinSpoken(
    hello,
    purpose ? `I'm calling to ${shortPurpose(purpose)}` : null,
    digits === '' ? 'Please call us back when it suits you' : `Please call us back at ${digits}`,
    digits === '' ? null : `Again, that's ${digits}`,
    'Thank you, goodbye',
  );
}

/** The agent's name as it introduces itself; "an assistant" for an empty one. */
export const agentName = (conversation: SipConversation): string =>
  clip(conversation.agent_name, MAX_FILLED) || 'an assistant';

/** Longest purpose a voicemail says: it has seconds, not minutes. */
const VOICEMAIL_PURPOSE = 100;

/** A long purpose cut at its last clause boundary that fits ("..., and whether ..." goes). */
function shortPurpose(purpose: string): string {
  if (purpose.length <= VOICEMAIL_PURPOSE) return purpose;
  const head = purpose.slice(0, VOICEMAIL_PURPOSE);
  const cut = Math.max(head.lastIndexOf(', and '), head.lastIndexOf('; '), head.lastIndexOf(' and whether '));
  return cut > 20 ? head.slice(0, cut) : clip(purpose, VOICEMAIL_PURPOSE);
}
