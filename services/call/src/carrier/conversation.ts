import type { CollectedDetail } from '@voice/shared';
import type { ContactInfo } from './contact';
import type { Rng } from './prng';
import type { AgentSnapshot } from './types';
import { answerFor, humanize } from './values';

/** One line of the planned conversation; times are simulated ms from the start of dialing. */
export interface PlannedLine {
  role: 'agent' | 'user';
  content: string;
  startMs: number;
  endMs: number;
}

/** A detail the contact gave; `atMs` is when their answer began (a hang-up after it keeps it). */
export interface PlannedItem {
  name: string;
  value: string | number | boolean;
  atMs: number;
}

/**
 * How a completed conversation goes; decides optional questions, declines and the sentiment.
 * `opting_out`: the contact asks not to be called again (the opt-out test number).
 */
export type Mood = 'smooth' | 'brief' | 'objection' | 'reluctant' | 'opting_out';

export interface Conversation {
  lines: PlannedLine[];
  items: PlannedItem[];
  /** Items the contact refused to give, with when they said so. */
  declined: { name: string; atMs: number }[];
  /** When the contact objected to the call, if they did. */
  objectionAtMs: number | null;
  /** When the contact asked not to be called again, if they did. */
  optOutAtMs: number | null;
  /** When the last word was spoken. */
  lastSpeechMs: number;
}

/** Speaking rates (words per second): synthesised speech is steady, people vary around it. */
const AGENT_WPS = 2.6;
const USER_WPS = 2.4;
/** No single line may take longer than this, so a huge start_flow cannot push past maxCallSeconds. */
export const MAX_LINE_MS = 60_000;

/** Pace jitter of one line and the pause before it, bounded so the budget check can be exact. */
const PACE = { min: 0.9, max: 1.15 } as const;
const PAUSE_MS = { min: 350, max: 1300 } as const;
const THINK_MS = 1200;

function speakingMs(text: string, wordsPerSecond: number, pace: number): number {
  const words = text.split(/\s+/).filter(Boolean).length;
  const ms = Math.round((words / wordsPerSecond) * 1000 * pace);
  return Math.min(MAX_LINE_MS, Math.max(700, ms));
}

/** The longest a line plus its pause can take: used to decide whether a question still fits. */
const worstMs = (text: string, wordsPerSecond: number): number =>
  speakingMs(text, wordsPerSecond, PACE.max) + PAUSE_MS.max;

const lowerFirst = (s: string): string => s.charAt(0).toLowerCase() + s.slice(1);
const sentence = (s: string): string => {
  const t = s.trim();
  return t === '' || /[.!?]$/.test(t) ? t : `${t}.`;
};

/** "a, b or c" */
function spokenList(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} or ${items.at(-1)}`;
}

/** Turns a catalogue description ("How interested…", "Budget the prospect has…") into a question. */
export function questionFor(detail: CollectedDetail, rng: Rng): string {
  const d = lowerFirst(detail.description.trim().replace(/[.?!]+$/, ''));
  let q: string;
  if (/^(whether|how|what|when|which|who|why|if)\b/.test(d))
    q = `${rng.pick(['Could you tell me', 'May I ask'])} ${d}?`;
  else if (detail.type === 'date' || detail.type === 'datetime') {
    const what = detail.type === 'date' ? 'date' : 'day and time';
    q = `About the ${d.replace(/^(the|a|an) /, '')}: what ${what} works for you?`;
  } else if (/^(the|a|an|any|some)\b/.test(d)) q = `${rng.pick(['Could you give me', 'Can I get'])} ${d}?`;
  else q = `${rng.pick(['Could you give me', 'Can I get'])} the ${d}?`;
  const options = detail.type === 'enum' ? (detail.options ?? []) : [];
  if (options.length > 0 && options.length <= 6) q += ` Would you say ${spokenList(options.map(humanize))}?`;
  return q;
}

/** The opening explanation: why the agent is calling, from the agent type's goal. */
export function purposeLine(agent: AgentSnapshot): string {
  const goal = agent.goal.trim();
  return goal === '' ? 'I’m calling with a quick follow-up.' : `I’m calling to ${sentence(lowerFirst(goal))}`;
}

class Timeline {
  readonly lines: PlannedLine[] = [];
  constructor(
    public t: number,
    private readonly rng: Rng,
  ) {}

  say(role: 'agent' | 'user', content: string, extraPauseMs = 0): PlannedLine {
    if (this.lines.length > 0) this.t += this.rng.int(PAUSE_MS.min, PAUSE_MS.max) + extraPauseMs;
    const startMs = this.t;
    const pace = this.rng.between(PACE.min, PACE.max);
    this.t += speakingMs(content, role === 'agent' ? AGENT_WPS : USER_WPS, pace);
    const line = { role, content, startMs, endMs: this.t };
    this.lines.push(line);
    return line;
  }
}

export interface ConversationInput {
  agent: AgentSnapshot;
  contact: ContactInfo;
  mood: Mood;
  startedAt: Date;
  to: string;
  rng: Rng;
  /** When the agent starts speaking. */
  startMs: number;
  /** The last word must be spoken by then (the plan's maxCallSeconds bound minus the hang-up). */
  limitMs: number;
}

/** A live conversation: start_flow, the goal, each collected detail asked and confirmed, end_flow. */
export function converse(input: ConversationInput): Conversation {
  const { agent, contact, mood, rng } = input;
  const first = contact.firstName;
  const tl = new Timeline(input.startMs, rng);
  tl.say('agent', agent.start_flow);
  tl.say(
    'user',
    first
      ? rng.pick([
          `Hi, yes, this is ${first}.`,
          `Yes, ${contact.fullName ?? first} speaking.`,
          `Hello, ${first} here.`,
        ])
      : rng.pick(['Hello? Yes, speaking.', 'Hi, who is this?', 'Yes, hello.']),
  );
  tl.say(
    'agent',
    `Thanks${first ? `, ${first}` : ''}. ${purposeLine(agent)} Do you have a couple of minutes?`,
  );
  if (mood === 'opting_out') {
    const optOutAtMs = tl.say(
      'user',
      'No. Please take my number off your list and don’t call me again.',
    ).startMs;
    tl.say(
      'agent',
      'I understand, and I’m sorry for the interruption. I’ve noted that we won’t call you again.',
    );
    tl.say('agent', agent.end_flow);
    return { lines: tl.lines, items: [], declined: [], objectionAtMs: null, optOutAtMs, lastSpeechMs: tl.t };
  }
  let objectionAtMs: number | null = null;
  if (mood === 'objection') {
    objectionAtMs = tl.say(
      'user',
      rng.pick([
        'I’m in the middle of something, to be honest. How long will this take?',
        'I get a lot of these calls. What is this really about?',
      ]),
    ).startMs;
    tl.say('agent', 'I understand. I’ll keep it to two minutes, and you can stop me at any point.');
    tl.say('user', rng.pick(['Okay, go ahead.', 'Fine, but quickly please.']));
  } else {
    tl.say('user', rng.pick(['Sure, go ahead.', 'Yes, I have a few minutes.', 'Okay, what do you need?']));
  }

  // Required items first (they decide "complete"), each group in catalogue order.
  const ordered = [...agent.collects.filter((c) => c.required), ...agent.collects.filter((c) => !c.required)];
  const askOptional = { smooth: 0.85, brief: 0.3, objection: 0.5, reluctant: 0.5 }[mood];
  const asked = ordered.filter((c) => c.required || rng.chance(askOptional));
  // A reluctant contact refuses one item, a required one when there is one (the call turns partial).
  const refusedName =
    mood === 'reluctant' && asked.length > 0
      ? (asked.find((c) => c.required && rng.chance(0.6)) ?? rng.pick(asked)).name
      : null;
  // The wrap-up exchange and end_flow, at their slowest (the wrap-up repeats one read-back value).
  const closingReserveMs = worstMs(agent.end_flow, AGENT_WPS) + 2 * MAX_LINE_MS;

  const items: PlannedItem[] = [];
  const declined: { name: string; atMs: number }[] = [];
  let ack = 'Great.';
  for (const detail of asked) {
    const answer = answerFor(detail, input);
    const question = answer.known
      ? `I have ${answer.readback} as your ${humanize(detail.name)}. Is that still right?`
      : questionFor(detail, rng);
    const refuses = detail.name === refusedName || (!detail.required && mood !== 'brief' && rng.chance(0.06));
    const reply = refuses
      ? rng.pick(['I’d rather not say, to be honest.', 'I’d prefer not to share that right now.'])
      : answer.spoken;
    // Stop asking once this question would not leave room to close the call properly.
    const worst = worstMs(`${ack} ${question}`, AGENT_WPS) + worstMs(reply, USER_WPS) + THINK_MS;
    if (tl.t + worst + closingReserveMs > input.limitMs) break;
    tl.say('agent', `${ack} ${question}`);
    const line = tl.say('user', reply, rng.int(0, THINK_MS));
    if (refuses) {
      declined.push({ name: detail.name, atMs: line.startMs });
      ack = rng.pick(['No problem, we can skip that.', 'That’s fine, I’ll leave it out.']);
    } else {
      items.push({ name: detail.name, value: answer.value, atMs: line.startMs });
      ack = rng.pick([
        `Got it, ${answer.readback}.`,
        `Thanks, I’ve noted ${humanize(detail.name)}: ${answer.readback}.`,
        `Perfect, ${answer.readback}.`,
      ]);
    }
  }

  const wrapUp = `That’s everything I needed${first ? `, ${first}` : ''}. Is there anything else I can help with?`;
  tl.say('agent', items.length + declined.length > 0 ? `${ack} ${wrapUp}` : wrapUp);
  tl.say(
    'user',
    mood === 'reluctant'
      ? 'No. Please keep these calls short.'
      : rng.pick(['No, that’s all. Thanks!', 'No, I think that covers it.', 'Nope, thank you.']),
  );
  tl.say('agent', agent.end_flow);
  return { lines: tl.lines, items, declined, objectionAtMs, optOutAtMs: null, lastSpeechMs: tl.t };
}

/** A voicemail drop: the agent's message only, said after the machine's greeting and beep. */
export function leaveMessage(
  agent: AgentSnapshot,
  contact: ContactInfo,
  from: string,
  rng: Rng,
  startMs: number,
) {
  const tl = new Timeline(startMs, rng);
  const hello = `Hi${contact.firstName ? ` ${contact.firstName}` : ''}, this is ${agent.name}.`;
  tl.say('agent', `${hello} ${purposeLine(agent)} Please call us back at ${from} when it suits you.`);
  tl.say('agent', agent.end_flow);
  return { lines: tl.lines, lastSpeechMs: tl.t };
}
