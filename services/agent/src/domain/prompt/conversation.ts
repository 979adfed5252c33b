import type { AgentType } from '@voice/shared/contracts';
import type { AgentTypePromptMaterial } from '../catalogue/types';
import type { CallKind } from './call-kind';
import { collectsField, collectsType } from './collect';
import { COMMON_OBJECTIONS, type Objection, PLAYBOOKS } from './playbooks';
import { bulleted, fieldList, numbered, quoted, spoken } from './text';

export interface RoleFacts {
  agentType: AgentType;
  material: AgentTypePromptMaterial;
  /** Already reduced to one line; quoted here. */
  name: string;
  description: string | null;
}

export function roleSection({ agentType, material, name, description }: RoleFacts): string {
  const scope = agentType.industry ? `${spoken(agentType.industry)} industry` : 'general';
  const about =
    description === null
      ? 'The business gave no description of itself. Do not invent details about it, such as its name, products, prices or policies.'
      : `About the business, in its own words: ${quoted(description)}`;
  return [
    `Your name is ${quoted(name)}. You are an AI voice assistant placing an outbound phone call on behalf of a business.`,
    material.persona,
    `Call type: ${agentType.name} (${scope}). ${agentType.description}`,
    `Your goal on this call: ${agentType.goal}`,
    about,
    'Success means reaching that goal with every required detail collected and confirmed, or ending the call politely when it cannot be reached.',
  ].join('\n');
}

export function linesSection(startFlow: string, endFlow: string, languageName: string): string {
  const opening = startFlow
    ? `Opening line. Say this first, word for word, as soon as the person answers:\n${quoted(startFlow)}`
    : 'Opening line. None is set: as soon as the person answers, greet them, give your name, say you are calling on behalf of the business, and give the reason for the call in one sentence.';
  const closing = endFlow
    ? `Closing line. Say this last, word for word, whenever the call ends:\n${quoted(endFlow)}`
    : 'Closing line. None is set: end every call by thanking the person for their time and saying goodbye.';
  return [
    opening,
    closing,
    `If a line contains a placeholder in curly braces, such as {first_name}, fill it from the call metadata, or leave it out naturally when the value is unknown. If a line is not written in ${languageName}, say it in ${languageName} with the same meaning.`,
  ].join('\n');
}

export function stepsSection(agentType: AgentType, kind: CallKind): string {
  const details = agentType.collects;
  const steps = [
    'Say the opening line, then pause for their reply.',
    'Make sure you are speaking with the right person, using their name from the call metadata when it is there. If someone else answers, ask for that person without saying why you are calling.',
  ];
  if (collectsField(details, 'recording_consent')) {
    steps.push(
      'Ask for consent to record the call before any other question, and record the answer in `recording_consent`.',
    );
  }
  if (collectsField(details, 'identity_verified')) {
    steps.push(
      'Verify their identity with the details your instructions or the call metadata specify, before discussing any account, health, legal or financial matter. If verification fails, share nothing, say the business will follow up, and end the call. Record the result in `identity_verified`.',
    );
  }
  steps.push(
    'Explain in one sentence why you are calling, in line with your goal, and check that now is a good time to talk.',
    ...PLAYBOOKS[kind].steps,
  );
  const required = details.filter((detail) => detail.required).map((detail) => detail.name);
  if (details.length > 0) {
    steps.push(
      required.length > 0
        ? `Collect the details listed under WHAT TO COLLECT, starting with the required ones (${fieldList(required)}), one question at a time, confirming each answer.`
        : 'Collect the details listed under WHAT TO COLLECT where they come up naturally, one question at a time, confirming each answer.',
    );
  }
  steps.push(
    'Summarise what was agreed and the next step in one or two sentences, and ask them to confirm it.',
    'Ask whether there is anything else you can help with, then say the closing line and end the call.',
  );
  return numbered(steps);
}

export function guidelinesSection(agentType: AgentType, material: AgentTypePromptMaterial): string {
  return [`Rules specific to ${agentType.name} calls:`, bulleted(material.guidelines)].join('\n');
}

function objectionLine(objection: Objection): string {
  const trigger = 'said' in objection ? `When they say "${objection.said}"` : `When ${objection.situation}`;
  return `${trigger}: ${objection.respond}`;
}

export function objectionsSection(agentType: AgentType, kind: CallKind): string {
  const inWriting: Objection = collectsType(agentType.collects, 'email')
    ? {
        said: 'Can you send me that in writing?',
        respond:
          'Offer to email it, and collect and confirm their email address as described under WHAT TO COLLECT.',
      }
    : {
        said: 'Can you send me that in writing?',
        respond:
          'Note the request and say the business will follow up in writing; do not promise a time you do not know.',
      };
  const objections: Objection[] = [
    ...COMMON_OBJECTIONS,
    ...PLAYBOOKS[kind].objections,
    inWriting,
    {
      said: 'Are you a robot? Am I talking to a real person?',
      respond:
        'Say honestly that you are an AI assistant calling on behalf of the business, then carry on if they are happy to.',
    },
    {
      situation: 'they ask something these instructions do not answer',
      respond:
        'Say you do not know rather than guessing, and offer that someone from the business will follow up.',
    },
  ];
  return [
    'Acknowledge first, then answer in a sentence or two. Never argue, and respect an objection the second time you hear it.',
    bulleted(objections.map(objectionLine)),
  ].join('\n');
}
