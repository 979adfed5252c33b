import type { CollectedDetail } from '@voice/shared/contracts';
import type { ConversationLine } from '../../conversation/types';
import { addDays, MONTHS, WEEKDAYS } from './dates';
import type { DetailValue } from './detail-values';
import type { Plan } from './plan';
import { spokenOption } from './spoken';
import { capitalise, clip } from './text';

// What an LLM brain sends for one turn: the agent's prompt as the system message with a short
// addition about this call, the conversation so far, and the tools. Bounded so that a long call
// or large metadata cannot make a request grow without end.

export type ChatMessage =
  | { role: 'system' | 'user'; content: string }
  | { role: 'assistant'; content: string | null; tool_calls?: ChatToolCall[] }
  | { role: 'tool'; tool_call_id: string; content: string };

export interface ChatToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export const REQUEST_LIMITS = {
  /** Characters of the agent's prompt (the contract's own maximum). */
  prompt: 32_000,
  /** Characters of the call's metadata as JSON. */
  metadata: 2_000,
  /** Conversation lines sent: the most recent ones. */
  lines: 40,
  /** Characters of one line. */
  lineChars: 1_000,
} as const;

function detailLine(detail: CollectedDetail, value: DetailValue | undefined): string {
  const need = detail.required ? 'required' : 'optional';
  const options =
    detail.type === 'enum' && detail.options?.length
      ? ` Allowed values: ${detail.options.map((o) => `${o} ("${spokenOption(o)}")`).join(', ')}.`
      : '';
  const have = value === undefined ? '' : ` Already recorded: ${JSON.stringify(value)}.`;
  return `- ${detail.name} (${detail.type}, ${need}): ${clip(detail.description, 300)}${options}${have}`;
}

/** The agent's prompt, then what this call adds: metadata, details (with what is recorded), the rules. */
export function systemPrompt(plan: Plan, collected: Readonly<Record<string, DetailValue>>): string {
  const { conversation } = plan.context;
  const today = plan.today;
  const date = addDays(today, 0);
  const weekday = capitalise(WEEKDAYS[today.weekday]!);
  const month = capitalise(MONTHS[today.month - 1]!);
  const metadata = conversation.metadata
    ? clip(JSON.stringify(conversation.metadata), REQUEST_LIMITS.metadata)
    : 'none';
  const details = conversation.collects.map((d) => detailLine(d, collected[d.name]));
  const addition = [
    '## This call',
    'You are on a live phone call. What you write is spoken by speech synthesis, and the callee is heard through speech recognition, which can mishear: if an answer makes no sense, ask again briefly.',
    'Keep every answer to one or two short sentences and ask one question at a time. No lists, markdown, emoji or stage directions.',
    `Today is ${weekday}, ${month} ${today.day}, ${today.year} (${date}).`,
    `Call metadata: ${metadata}`,
    details.length > 0
      ? `Details to collect, one question at a time (record each with record_detail as soon as the callee gives it; dates as YYYY-MM-DD, date-times as YYYY-MM-DDTHH:MM):\n${details.join('\n')}`
      : 'There are no details to collect on this call.',
    'If the callee wants a call back, record callback_time when they say when. If they ask not to be called again, call opt_out. When the conversation is over (everything collected, not interested, call back, wrong person, opted out), say a short goodbye and call end_call with the reason.',
  ].join('\n\n');
  return `${clip(conversation.prompt, REQUEST_LIMITS.prompt)}\n\n${addition}`;
}

/**
 * The conversation as chat messages: agent lines as the assistant's, the callee's as the user's
 * (consecutive lines of one side joined), the most recent REQUEST_LIMITS.lines only. `heard` is
 * added when the lines do not already end with it.
 */
export function chatMessages(
  system: string,
  lines: readonly ConversationLine[],
  heard: string | null,
): ChatMessage[] {
  const recent = lines.slice(-REQUEST_LIMITS.lines);
  const messages: ChatMessage[] = [{ role: 'system', content: system }];
  let last: { role: 'user' | 'assistant'; content: string } | null = null;
  const add = (role: 'user' | 'assistant', text: string) => {
    const content = clip(text, REQUEST_LIMITS.lineChars);
    if (content === '') return;
    if (last && last.role === role) last.content = `${last.content} ${content}`;
    else {
      last = { role, content };
      messages.push(last);
    }
  };
  for (const line of recent) add(line.role === 'agent' ? 'assistant' : 'user', line.text);
  const tail = recent.at(-1);
  if (heard !== null && heard.trim() !== '' && !(tail?.role === 'user' && tail.text === heard))
    add('user', heard);
  return messages;
}
