import { joinSpoken } from './text';

// The brain's fixed lines, as data: both brains say these (the LLM adapter for silence and the
// maximum duration, which need no model round trip).

export const LINES = {
  reprompt: 'Are you still there?',
  silenceGoodbye: "It seems I can't hear you, so I'll let you go.",
  hereAgain: "Yes, I'm here.",
  optOutConfirm: "Of course. I've taken your number off our list, and we won't call you again.",
  notInterested: 'I understand, thanks for letting me know.',
  wrongPerson: "I'm sorry for the trouble. Have a good day, goodbye.",
  callBackUnknown: "Of course, we'll call you back another time.",
  allDone: "That's everything I needed.",
  declined: "No problem, we'll skip that.",
  movingOn: "No problem, let's move on.",
  interestYes: 'Great, thank you.',
  /** The LLM adapter's line when the model fails or is too slow. */
  fallback: 'Sorry, could you say that again?',
} as const;

/** Acknowledgements, taken in turn so that consecutive answers do not all get the same one. */
export const ACKS = ['Got it', 'Thanks', 'Great', 'Perfect'] as const;

/** The first silence: ask whether they are there, then the pending question again. */
export const stillThere = (question: string | null): string => joinSpoken(LINES.reprompt, question);

/** The question the agent asked last (the last sentence ending in "?" of its last line), for a reprompt. */
export function lastQuestion(lines: readonly { role: 'agent' | 'user'; text: string }[]): string | null {
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i]!;
    if (line.role !== 'agent') continue;
    const questions = line.text.match(/[^.!?]*\?/g);
    const last = questions?.at(-1)?.trim();
    return last ? last.slice(0, 300) : null;
  }
  return null;
}
