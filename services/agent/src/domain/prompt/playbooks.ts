import type { CallKind } from './call-kind';

/** What the person says (paraphrased, quoted in the prompt) or a situation, and how to respond. */
export type Objection = ({ said: string } | { situation: string }) & { respond: string };

export interface Playbook {
  /** Middle steps of the conversation, between the introduction and collecting the details. */
  steps: readonly string[];
  /** Objections typical of this kind of call, on top of the ones every call gets. */
  objections: readonly Objection[];
}

export const PLAYBOOKS: Readonly<Record<CallKind, Playbook>> = {
  sales: {
    steps: [
      'Find out their situation with one or two open questions, such as what they use today, before presenting anything.',
      'Present the offer in one or two sentences, in terms of what they just told you.',
      'Propose one concrete next step that moves toward your goal, with a specific day and time.',
    ],
    objections: [
      {
        said: 'It is too expensive, or what does it cost?',
        respond:
          'Acknowledge the concern, give only prices from your instructions, and relate the value to what they told you. If you have no price, say a colleague will confirm it and offer that as the next step.',
      },
      {
        said: 'I already have a provider or a solution.',
        respond:
          'Ask one question about what they would improve in their current setup. If nothing, thank them and do not push.',
      },
      {
        said: 'I need to think about it, or talk to someone else first.',
        respond:
          'Agree that it makes sense, ask whether anyone else should join a follow-up, and offer to book that follow-up at a specific time.',
      },
    ],
  },
  scheduling: {
    steps: [
      'Say what the booking, appointment or task is about, with its date and time if your instructions or the call metadata give them.',
      'If a new time is needed, offer two or three specific options rather than an open question, and agree on one.',
      'Mention anything the person must bring or prepare, only if your instructions say so.',
    ],
    objections: [
      {
        said: 'None of those times work for me.',
        respond:
          'Ask which days and times generally suit them, offer the closest options you have, and if none fit, note their availability and say someone will follow up.',
      },
      {
        said: 'I want to cancel.',
        respond:
          'Offer to reschedule once. If they still want to cancel, confirm the cancellation and any reason they volunteer, without pressing for one.',
      },
    ],
  },
  intake: {
    steps: [
      'Tell the person roughly how many questions you have and how long it will take.',
      'Let them explain in their own words first, then ask specific follow-up questions for whatever is still missing.',
      'Keep a neutral tone: do not comment on or judge their answers.',
    ],
    objections: [
      {
        said: 'Why do you need that, or is this information safe?',
        respond:
          'Explain briefly what the detail is used for and that it stays with the business. Optional details can be skipped; say so.',
      },
      {
        said: 'I do not know, or I do not have it to hand.',
        respond:
          'Accept an estimate when the detail allows it, otherwise skip it and note that they will provide it later.',
      },
    ],
  },
  payment: {
    steps: [
      'Only after the account holder is confirmed, state the amount owed and the due date clearly and without judgement, using the figures in your instructions or the call metadata.',
      'Ask how they would like to settle it, offering only the options in your instructions, such as paying in full, paying by a specific date or a payment plan.',
      'Do not take payment card or bank details on the call; point them to the payment methods in your instructions.',
    ],
    objections: [
      {
        said: 'I cannot afford to pay right now.',
        respond:
          'Listen to the reason, record it, and offer the smaller amounts, later dates or payment plans your instructions allow. Never pressure, shame or threaten.',
      },
      {
        said: 'I do not owe this, or I already paid.',
        respond:
          'Do not argue. Record it as a dispute with their explanation, and say the account team will review it and get back to them.',
      },
    ],
  },
  retention: {
    steps: [
      'Ask what is behind their decision and let them finish before you respond.',
      'Acknowledge the reason in your own words, then offer at most two options from your instructions that address that reason.',
      'If they still want to leave or not renew, respect it and explain the next steps clearly.',
    ],
    objections: [
      {
        said: 'My mind is made up.',
        respond: 'Respect it at once. Confirm what happens next and thank them for being a customer.',
      },
      {
        said: 'Someone else is cheaper.',
        respond:
          'Ask what they would be paying and for what, then mention an offer only if your instructions include one that fits.',
      },
    ],
  },
  feedback: {
    steps: [
      'Ask an open question about their experience and listen without interrupting.',
      'If they report a problem, apologise once, capture the specifics, and explain what will happen next.',
      'If the experience was good, thank them, and invite a review or a next step only if your instructions include one.',
    ],
    objections: [
      {
        said: 'I do not have time for a survey.',
        respond:
          'Offer to ask just the one or two most important questions, or to call back at a better time.',
      },
      {
        situation: 'they are upset about what happened',
        respond:
          'Let them speak, acknowledge the frustration without arguing or making excuses, record the problem, and say who will follow up.',
      },
    ],
  },
  support: {
    steps: [
      'Ask the person to describe the issue or its current state in their own words, then restate it in one sentence and confirm you understood.',
      'Work through one step at a time and wait for the result before the next.',
      'If it cannot be solved on the call, say so plainly and explain who will follow up and when.',
    ],
    objections: [
      {
        said: 'I already tried that.',
        respond: 'Thank them, skip that step, and move to the next one or to a hand-off.',
      },
      {
        said: 'I want to speak to a real person.',
        respond:
          'Say you are an AI assistant, and offer the hand-off or callback your instructions describe. Record the request.',
      },
    ],
  },
  verification: {
    steps: [
      'Read each required statement or question exactly as your instructions give it, without paraphrasing.',
      'Ask for an explicit yes or no on each point; treat anything else as unclear and ask again.',
      'If the person disagrees or is unsure, stop, record what they said in their own words, and do not persuade them.',
    ],
    objections: [
      {
        said: 'How do I know this call is genuine?',
        respond:
          'Say they can hang up and call the business back on the number they already know. Never ask for passwords, PINs or one-time codes.',
      },
      {
        said: 'Why do I have to confirm this?',
        respond:
          'Explain that the business must record their confirmation, and that saying no is also a valid answer.',
      },
    ],
  },
  notice: {
    steps: [
      'Deliver the notice clearly in two or three short sentences: what it is about and why it matters to them.',
      'Check that they understood, and answer questions only from your instructions.',
      'Offer the next step your goal calls for, such as a booking or a callback.',
    ],
    objections: [
      {
        said: 'I already know, or it is already handled.',
        respond: 'Thank them, confirm the details you need to record, and keep the rest of the call short.',
      },
      {
        said: 'Is this a scam?',
        respond:
          'Say they can verify by calling the business on a number they already know, and do not ask for any sensitive data.',
      },
    ],
  },
  general: {
    steps: [
      'Use the business description to understand what the call is for; if it does not say, keep to a short, polite check-in.',
      'Ask open questions, one at a time, and take notes on what the person says.',
    ],
    objections: [
      {
        said: 'What is this about?',
        respond: 'Explain the purpose in one sentence using only what the business description says.',
      },
    ],
  },
};

/** Objections any outbound call meets, whatever its purpose (written follow-ups depend on the type). */
export const COMMON_OBJECTIONS: readonly Objection[] = [
  {
    said: 'I am not interested.',
    respond:
      'Acknowledge it. You may ask one short question to understand why, but if they repeat it, thank them and end the call without pushing.',
  },
  {
    said: 'I am busy, call me back later.',
    respond:
      'Ask for a specific day and time that suits them, repeat it back, thank them, and end the call with the closing line.',
  },
  {
    said: 'Who are you, or how did you get my number?',
    respond:
      'Give your name, say you are an AI assistant calling on behalf of the business, and state the reason for the call. Say their number comes from the business’s records only if your instructions or the call metadata say so; never invent a source. Offer to stop calling them if they wish.',
  },
];
