import type { CollectedDetail } from '@voice/shared/contracts';
import type { BrainContext, Expectation, SlotKind } from '../../conversation/types';
import { type Callee, calleeOf, type Metadata, timeZoneOf } from './callee';
import { type LocalNow, localNow } from './dates';
import { isNameDetail } from './detail-values';
import { agentName, openingLine } from './flows';
import { expectationFor, purposeOf } from './questions';

// What the rule brain knows for the whole call, worked out once at its start.

/** Optional details asked at most, after the required ones: a call is not a survey. */
export const DEFAULT_MAX_OPTIONAL = 2;

/**
 * Details the brain fills from how the call went instead of asking (asking a callee "whether the
 * prospect asked not to be called again" makes no sense). Only boolean details of these names.
 */
export const INFERRED_DETAILS = ['do_not_call', 'identity_verified'] as const;
export type InferredDetail = (typeof INFERRED_DETAILS)[number];

export interface Plan {
  context: BrainContext;
  metadata: Metadata;
  callee: Callee;
  today: LocalNow;
  agent: string;
  /** Why the agent calls, in the second person; null without a goal. */
  purpose: string | null;
  opening: string;
  /** Details to ask, in order: the callee's name first (when unknown), then required, then optional. */
  asked: readonly CollectedDetail[];
  /** Name details when the metadata names the callee: recorded when they confirm who they are. */
  named: readonly CollectedDetail[];
  inferred: readonly (CollectedDetail & { name: InferredDetail })[];
  maxOptional: number;
}

const isInferred = (d: CollectedDetail): d is CollectedDetail & { name: InferredDetail } =>
  d.type === 'boolean' && (INFERRED_DETAILS as readonly string[]).includes(d.name);

export function planFor(context: BrainContext, maxOptional = DEFAULT_MAX_OPTIONAL): Plan {
  const { conversation } = context;
  const metadata = conversation.metadata;
  const callee = calleeOf(metadata);
  const askable = conversation.collects.filter((d) => !isInferred(d));
  // Asking a callee's name is pointless when the metadata names them: identity is confirmed instead.
  const names = askable.filter(isNameDetail);
  const rest = askable.filter((d) => !isNameDetail(d));
  const nameFirst = callee.firstName ? [] : names;
  return {
    context,
    metadata,
    callee,
    today: localNow(context.now, timeZoneOf(metadata)),
    agent: agentName(conversation),
    purpose: purposeOf(conversation.goal),
    opening: openingLine(context.start_flow, callee, metadata),
    asked: [...nameFirst, ...rest.filter((d) => d.required), ...rest.filter((d) => !d.required)],
    named: callee.firstName ? names : [],
    inferred: conversation.collects.filter(isInferred),
    maxOptional: Math.max(0, maxOptional),
  };
}

/**
 * What the recogniser should listen for when the brain does not know the exact question (the LLM
 * brain): the next detail still missing, required first, plus yes and no.
 */
export function pendingExpectation(plan: Plan, collected: Readonly<Record<string, unknown>>): Expectation {
  const missing = plan.asked.filter((d) => !(d.name in collected));
  const next = missing.find((d) => d.required) ?? missing[0];
  if (!next) return { slots: ['yes_no'], phrases: [] };
  const own = expectationFor(next);
  return { slots: [...new Set<SlotKind>(['yes_no', ...own.slots])], phrases: own.phrases };
}
