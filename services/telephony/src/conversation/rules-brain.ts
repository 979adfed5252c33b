import { type DialogueState, openDialogue, respondDialogue } from '../domain/conversation/dialogue';
import { voicemailMessage } from '../domain/conversation/flows';
import { outcomeOf } from '../domain/conversation/outcome';
import { DEFAULT_MAX_OPTIONAL, type Plan, planFor } from '../domain/conversation/plan';
import type {
  Brain,
  BrainAction,
  BrainContext,
  BrainInput,
  BrainSession,
  ConversationEnd,
  ConversationLine,
  ConversationOutcome,
} from './types';

// The local rule brain: the pure dialogue policy of domain/conversation behind the Brain seam.

export interface RulesBrainOptions {
  /** Optional details asked at most, after the required ones. */
  maxOptionalDetails?: number;
}

export class RulesBrain implements Brain {
  readonly name = 'rules';
  constructor(private readonly options: RulesBrainOptions = {}) {}

  start(context: BrainContext): BrainSession {
    return new RulesBrainSession(planFor(context, this.options.maxOptionalDetails ?? DEFAULT_MAX_OPTIONAL));
  }
}

export class RulesBrainSession implements BrainSession {
  private state: DialogueState | null = null;

  constructor(private readonly plan: Plan) {}

  async *open(): AsyncIterable<BrainAction> {
    const turn = openDialogue(this.plan);
    this.state = turn.state;
    yield* turn.actions;
  }

  async *respond(input: BrainInput, _lines: readonly ConversationLine[]): AsyncIterable<BrainAction> {
    // A respond before open (not the engine's order) starts from the opened state, unsaid.
    this.state ??= openDialogue(this.plan).state;
    const turn = respondDialogue(this.plan, this.state, input);
    this.state = turn.state;
    yield* turn.actions;
  }

  voicemailMessage(): string {
    return voicemailMessage(this.plan);
  }

  async outcome(
    lines: readonly ConversationLine[],
    end: ConversationEnd | null,
  ): Promise<ConversationOutcome> {
    const state = this.state;
    return outcomeOf(this.plan, lines, end, {
      collected: state?.collected ?? {},
      optedOut: state?.optedOut ?? false,
      callee: state?.learnedName ?? (state?.identity === 'confirmed' ? this.plan.callee.fullName : null),
      callback: state?.callback ?? null,
      heard: state?.heard ?? false,
    });
  }
}
