import type { CollectedDetail } from '@voice/shared/contracts';
import type { BrainAction, BrainInput, ConversationEnd, Expectation, Intent } from '../../conversation/types';
import { metadataValue, parseName, sameName } from './callee';
import { addDays, parseWhen, spokenDate, spokenTime } from './dates';
import { coerceDetailValue, type DetailValue, isNameDetail, parseDetail, readBack } from './detail-values';
import { closingLine } from './flows';
import { declines, intentsIn } from './intents';
import type { Plan } from './plan';
import { expectationFor, questionFor, reaskFor } from './questions';
import { ACKS, LINES } from './replies';
import { humanise, joinSpoken } from './text';

// The rule brain's dialogue policy as a pure state machine: one input in, the next state and the
// turn's actions out. Identity first (when the metadata names the callee), then the details one
// question a turn, with the standard intents (opt-out, not interested, call back ...) handled on
// every turn. Each turn that does not end the call ends with an `expect`.

type Partial = { date: string | null; time: string | null };

export type Step =
  | { kind: 'identity'; attempts: number }
  | {
      kind: 'detail';
      name: string;
      attempts: number;
      confirming: DetailValue | null;
      partial: Partial | null;
    }
  /** No detail to ask: whether the callee is interested in what the agent calls about. */
  | { kind: 'interest'; attempts: number };

export interface DialogueState {
  /** What the agent asked and waits an answer to; null once the call is ended. */
  step: Step | null;
  collected: Readonly<Record<string, DetailValue>>;
  /** Details asked and finished with: answered, declined or given up on. */
  done: readonly string[];
  optionalAsked: number;
  identity: 'unknown' | 'confirmed' | 'denied';
  /** The name the callee gave when the metadata had none. */
  learnedName: string | null;
  optedOut: boolean;
  end: ConversationEnd | null;
  /** When the callee asked to be called back (ISO date, date-time or null when unsaid). */
  callback: string | null;
  /** Whether the callee said anything at all. */
  heard: boolean;
}

export interface Turn {
  state: DialogueState;
  actions: BrainAction[];
}

/** Unanswerable re-asks of one step before the brain moves on. */
const MAX_ATTEMPTS = 1;

const INITIAL: DialogueState = {
  step: null,
  collected: {},
  done: [],
  optionalAsked: 0,
  identity: 'unknown',
  learnedName: null,
  optedOut: false,
  end: null,
  callback: null,
  heard: false,
};

/** The opening turn: the agent's start_flow, then who it speaks to or the first question. */
export function openDialogue(plan: Plan): Turn {
  const name = plan.callee.firstName;
  if (name) {
    const step: Step = { kind: 'identity', attempts: 0 };
    return ask(plan, { ...INITIAL, step }, [plan.opening]);
  }
  return next(plan, INITIAL, [plan.opening]);
}

export function respondDialogue(plan: Plan, state: DialogueState, input: BrainInput): Turn {
  if (state.step === null) return { state, actions: [] };
  switch (input.type) {
    case 'max_duration':
      return finish(plan, state, [], 'max_duration');
    case 'silence':
      if (input.count <= 1) return ask(plan, state, [LINES.reprompt]);
      return finish(plan, state, [LINES.silenceGoodbye], 'silence');
    case 'utterance':
      // No words after the callee talked over the agent (a cough, a click): the question again, as is.
      if (input.text.trim() === '' && input.interrupted) return ask(plan, state, []);
      return utterance(plan, { ...state, heard: state.heard || input.text.trim() !== '' }, input.text);
  }
}

function utterance(plan: Plan, state: DialogueState, text: string): Turn {
  const intents = intentsIn(text);
  const has = (i: Intent) => intents.includes(i);
  if (has('opt_out')) return optOut(plan, state);
  if (has('wrong_person')) return wrongPerson(state);
  if (has('not_interested')) return finish(plan, state, [LINES.notInterested], 'not_interested');
  if (has('call_back')) return callBack(plan, state, text);
  if (has('question')) return ask(plan, state, [introduction(plan)]);
  const step = state.step!;
  switch (step.kind) {
    case 'identity':
      return identity(plan, state, step, text, intents);
    case 'detail':
      return detail(plan, state, step, text, intents);
    case 'interest':
      return interest(plan, state, step, intents);
  }
}

// ---------------------------------------------------------------------------------------------
// Steps

function identity(
  plan: Plan,
  state: DialogueState,
  step: Step & { kind: 'identity' },
  text: string,
  intents: readonly Intent[],
): Turn {
  const expected = plan.callee.firstName!;
  const said = parseName(text);
  const same = said !== null && sameName(said, expected);
  if ((said && !same) || (!same && intents[0] === 'no')) return wrongPerson(state);
  if (same || intents.includes('yes')) {
    const records = plan.named.map((d) => [d.name, nameValue(plan, d)] as const);
    const confirmed = { ...state, identity: 'confirmed' as const, step: null };
    return withRecords(next(plan, confirmed, [`Thanks, ${expected}`]), records);
  }
  if (intents.includes('goodbye')) return finish(plan, state, [], goodbyeEnd(plan, state));
  return retry(plan, state, step, intents.includes('greeting') ? null : "Sorry, I didn't catch that.", () =>
    next(plan, { ...state, step: null }, []),
  );
}

function detail(
  plan: Plan,
  state: DialogueState,
  step: Step & { kind: 'detail' },
  text: string,
  intents: readonly Intent[],
): Turn {
  const d = detailNamed(plan, step.name);
  const parsed =
    step.confirming !== null && intents[0] === 'yes'
      ? { value: step.confirming }
      : parse(plan, d, step, text);
  if (parsed && 'value' in parsed) {
    const recorded = record(state, d, parsed.value);
    const ack = acknowledgement(state, d, parsed.value);
    if (intents.includes('goodbye'))
      return withRecords(finish(plan, recorded, [ack], goodbyeEnd(plan, recorded)), [[d.name, parsed.value]]);
    return withRecords(next(plan, recorded, [ack]), [[d.name, parsed.value]]);
  }
  if (parsed && 'partial' in parsed) {
    return ask(plan, { ...state, step: { ...step, partial: parsed.partial, attempts: 0 } }, []);
  }
  if (step.confirming !== null && intents[0] === 'no') {
    return ask(plan, { ...state, step: { ...step, confirming: null, attempts: 0 } }, [
      'Thanks for correcting me',
    ]);
  }
  if (intents.includes('goodbye')) return finish(plan, state, [], goodbyeEnd(plan, state));
  if (declines(text) || (intents[0] === 'no' && d.type !== 'boolean')) {
    return next(plan, markDone(state, d.name), [LINES.declined]);
  }
  if (intents.includes('greeting')) {
    return retry(plan, state, step, LINES.hereAgain, () =>
      next(plan, markDone(state, d.name), [LINES.movingOn]),
    );
  }
  return retry(plan, state, step, null, () => next(plan, markDone(state, d.name), [LINES.movingOn]));
}

function interest(
  plan: Plan,
  state: DialogueState,
  step: Step & { kind: 'interest' },
  intents: readonly Intent[],
): Turn {
  if (intents[0] === 'yes') return finish(plan, state, [LINES.interestYes], 'completed');
  if (intents[0] === 'no') return finish(plan, state, [LINES.notInterested], 'not_interested');
  if (intents.includes('goodbye')) return finish(plan, state, [], 'completed');
  return retry(plan, state, step, "Sorry, I didn't catch that.", () => finish(plan, state, [], 'completed'));
}

/** The step asked once more (with `lead`, or its re-ask wording), or `giveUp` after MAX_ATTEMPTS. */
function retry(plan: Plan, state: DialogueState, step: Step, lead: string | null, giveUp: () => Turn): Turn {
  if (step.attempts >= MAX_ATTEMPTS) return giveUp();
  const again = { ...state, step: { ...step, attempts: step.attempts + 1 } };
  if (lead !== null || step.kind !== 'detail' || step.confirming !== null || step.partial !== null) {
    return ask(plan, again, lead === null ? [] : [lead]);
  }
  const d = detailNamed(plan, step.name);
  return say(again, reaskFor(d), expectationFor(d));
}

// ---------------------------------------------------------------------------------------------
// Intents that end the call

function optOut(plan: Plan, state: DialogueState): Turn {
  const opted = { ...state, optedOut: true };
  const end = finish(plan, opted, [], 'opted_out');
  return {
    state: end.state,
    actions: [{ type: 'say', text: LINES.optOutConfirm }, { type: 'opt_out' }, ...end.actions],
  };
}

function wrongPerson(state: DialogueState): Turn {
  const ended = { ...state, step: null, identity: 'denied' as const, end: 'wrong_person' as const };
  return {
    state: ended,
    actions: [
      { type: 'say', text: LINES.wrongPerson },
      { type: 'end_call', reason: 'wrong_person' },
    ],
  };
}

function callBack(plan: Plan, state: DialogueState, text: string): Turn {
  const when = parseWhen(text, plan.today);
  let value: string | null = null;
  if (when.date) value = when.time ? `${when.date}T${when.time}` : when.date;
  else if (when.time) {
    // A time alone: today's, or tomorrow's when it has passed.
    const [h, m] = when.time.split(':').map(Number);
    const date = addDays(plan.today, (h ?? 0) * 60 + (m ?? 0) > plan.today.minutes ? 0 : 1);
    value = `${date}T${when.time}`;
  }
  if (value === null) return finish(plan, state, [LINES.callBackUnknown], 'call_back');
  const [date, time] = value.split('T');
  const spoken = time ? `${spokenDate(date!)} at ${spokenTime(time)}` : spokenDate(date!);
  const turn = finish(
    plan,
    { ...state, callback: value },
    [`Of course, we'll call you back on ${spoken}`],
    'call_back',
  );
  return withRecords(turn, [['callback_time', value]]);
}

// ---------------------------------------------------------------------------------------------
// Turn building

/** Asks the next detail (required first, then a bounded number of optional ones), or ends: all done. */
function next(plan: Plan, state: DialogueState, lead: readonly string[]): Turn {
  const required = plan.asked.filter((d) => d.required && !state.done.includes(d.name));
  const optional = plan.asked.filter((d) => !d.required && !state.done.includes(d.name));
  const d = required[0] ?? (state.optionalAsked < plan.maxOptional ? optional[0] : undefined);
  if (!d) {
    if (plan.asked.length === 0 && state.step?.kind !== 'interest' && !state.done.includes('#interest')) {
      return ask(
        plan,
        { ...state, step: { kind: 'interest', attempts: 0 }, done: [...state.done, '#interest'] },
        lead,
      );
    }
    return finish(plan, state, [...lead, LINES.allDone], 'completed');
  }
  const known = coerceDetailValue(d, metadataFor(plan, d), plan.today);
  const step: Step = { kind: 'detail', name: d.name, attempts: 0, confirming: known, partial: null };
  return ask(plan, { ...state, step, optionalAsked: state.optionalAsked + (d.required ? 0 : 1) }, lead);
}

/** Says `lead` and the pending step's question, and expects its answer. */
function ask(plan: Plan, state: DialogueState, lead: readonly string[]): Turn {
  const step = state.step!;
  return say(state, joinSpoken(...lead, questionOf(plan, step)), expectationOf(plan, step));
}

function say(state: DialogueState, text: string, expect: Expectation): Turn {
  return {
    state,
    actions: [
      { type: 'say', text },
      { type: 'expect', expect },
    ],
  };
}

/** Ends the call: `lead`, the closing line (not for a wrong person), inferred details, end_call. */
function finish(plan: Plan, state: DialogueState, lead: readonly string[], reason: ConversationEnd): Turn {
  const records = plan.inferred
    .filter((d) => !(d.name in state.collected))
    .map(
      (d) => [d.name, d.name === 'do_not_call' ? state.optedOut : state.identity === 'confirmed'] as const,
    );
  const name = state.learnedName ?? plan.callee.firstName;
  const closing = closingLine(plan.context.end_flow, { firstName: name, fullName: name }, plan.metadata);
  const ended = { ...state, step: null, end: reason };
  const turn: Turn = {
    state: ended,
    actions: [
      { type: 'say', text: joinSpoken(...lead, closing) },
      { type: 'end_call', reason },
    ],
  };
  return withRecords(turn, records);
}

/** Records details: `record_detail` actions first in the turn, as soon as the brain knows them. */
function withRecords(turn: Turn, records: readonly (readonly [string, DetailValue])[]): Turn {
  if (records.length === 0) return turn;
  let collected = turn.state.collected;
  for (const [name, value] of records) collected = { ...collected, [name]: value };
  const actions: BrainAction[] = records.map(([name, value]) => ({ type: 'record_detail', name, value }));
  return { state: { ...turn.state, collected }, actions: [...actions, ...turn.actions] };
}

function questionOf(plan: Plan, step: Step): string {
  switch (step.kind) {
    case 'identity':
      return `Am I speaking with ${plan.callee.firstName}?`;
    case 'interest':
      return plan.purpose
        ? `I'm calling to ${plan.purpose}. Would that be of interest to you?`
        : 'Would you like to hear more?';
    case 'detail': {
      const d = detailNamed(plan, step.name);
      if (step.partial?.date) return `And what time on ${spokenDate(step.partial.date)}?`;
      if (step.partial?.time) return `And on which day, at ${spokenTime(step.partial.time)}?`;
      if (step.confirming !== null) {
        return `I have ${readBack(d, step.confirming)} as your ${humanise(d.name)}. Is that still right?`;
      }
      return questionFor(d);
    }
  }
}

function expectationOf(plan: Plan, step: Step): Expectation {
  switch (step.kind) {
    case 'identity': {
      const name = plan.callee.firstName!.toLowerCase();
      return { slots: ['yes_no', 'name'], phrases: [name, `this is ${name}`] };
    }
    case 'interest':
      return { slots: ['yes_no'], phrases: [] };
    case 'detail': {
      if (step.partial?.date) return { slots: ['time'], phrases: [] };
      if (step.partial?.time) return { slots: ['date'], phrases: [] };
      const own = expectationFor(detailNamed(plan, step.name));
      if (step.confirming === null) return own;
      return { slots: [...new Set(['yes_no' as const, ...own.slots])], phrases: own.phrases };
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Small pieces

function parse(plan: Plan, d: CollectedDetail, step: Step & { kind: 'detail' }, text: string) {
  const parsed = parseDetail(d, text, plan.today);
  if (!parsed || !('partial' in parsed) || !step.partial) return parsed;
  // The rest of a date-time heard in part: the new half joins the old.
  const date = parsed.partial.date ?? step.partial.date;
  const time = parsed.partial.time ?? step.partial.time;
  return date && time ? { value: `${date}T${time}` } : { partial: { date, time } };
}

function record(state: DialogueState, d: CollectedDetail, value: DetailValue): DialogueState {
  const learned =
    typeof value === 'string' && isNameDetail(d) && !state.learnedName ? value : state.learnedName;
  return { ...markDone(state, d.name), learnedName: learned };
}

const markDone = (state: DialogueState, name: string): DialogueState => ({
  ...state,
  step: null,
  done: [...state.done, name],
});

function acknowledgement(state: DialogueState, d: CollectedDetail, value: DetailValue): string {
  const ack = ACKS[Object.keys(state.collected).length % ACKS.length]!;
  if (isNameDetail(d) && typeof value === 'string') return `Thanks, ${value}`;
  if (d.type === 'boolean') return ack;
  return `${ack}, ${readBack(d, value)}`;
}

/** Who calls and why, for "who is this?". */
function introduction(plan: Plan): string {
  return joinSpoken(`This is ${plan.agent}`, plan.purpose ? `I'm calling to ${plan.purpose}` : null);
}

/** A goodbye before the required details are in is the callee ending it: not interested. */
function goodbyeEnd(plan: Plan, state: DialogueState): ConversationEnd {
  return plan.asked.every((d) => !d.required || d.name in state.collected) ? 'completed' : 'not_interested';
}

function detailNamed(plan: Plan, name: string): CollectedDetail {
  return plan.asked.find((d) => d.name === name)!;
}

function metadataFor(plan: Plan, d: CollectedDetail): unknown {
  const value = metadataValue(plan.metadata, d.name);
  return value === null || value === '' ? undefined : value;
}

function nameValue(plan: Plan, d: CollectedDetail): string {
  return d.name === 'first_name' ? plan.callee.firstName! : (plan.callee.fullName ?? plan.callee.firstName!);
}
