import type { CollectedDetail } from '@voice/shared/contracts';
import type { DetailValue } from '../domain/conversation/detail-values';
import { openDialogue } from '../domain/conversation/dialogue';
import { closingLine, voicemailMessage } from '../domain/conversation/flows';
import { type ChatMessage, chatMessages, systemPrompt } from '../domain/conversation/llm-request';
import {
  type AssembledCall,
  CALLBACK_DETAIL,
  ToolCallAssembler,
  toolDefinitions,
  toolOutcome,
} from '../domain/conversation/llm-tools';
import { outcomeOf } from '../domain/conversation/outcome';
import { type Plan, pendingExpectation, planFor } from '../domain/conversation/plan';
import { LINES, lastQuestion, stillThere } from '../domain/conversation/replies';
import { SentenceSplitter } from '../domain/conversation/sentences';
import { joinSpoken } from '../domain/conversation/text';
import { streamChatCompletion } from './llm-sse';
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

// The dialogue brain on an OpenAI-compatible chat-completions endpoint. Each callee turn is one
// streamed request (plus a follow-up when the model only called tools and said nothing); sentences
// are spoken as they complete, tool calls become actions. The opening, silence and the maximum
// duration use the rule brain's phrasing with no model round trip, and sentiment and summary are
// the rule brain's functions over the lines: no extra model call after the conversation. A failing
// or slow model costs the turn a fallback line and a warning, never the call.

/** Where warnings go; a pino logger fits. */
export interface BrainLog {
  warn(fields: Record<string, unknown>, message: string): void;
}

export interface LlmBrainConfig {
  /** `https://host/v1` of an OpenAI-compatible API (LLM_BASE_URL). */
  baseUrl: string;
  /** LLM_API_KEY; sent as a bearer token, never logged. */
  apiKey: string;
  /** Overrides every agent's ai_model when set. */
  model?: string;
  /** Longest wait for the first token of an answer before the fallback line. */
  timeoutMs: number;
  /** Longest a whole answer may stream; default 30 s. */
  responseTimeoutMs?: number;
  /** Spoken characters of one answer; the rest is not read. Default 1200. */
  maxResponseChars?: number;
  /** `max_tokens` asked of the model; default 300. */
  maxTokens?: number;
}

/** The model used when neither the agent nor the configuration names one. */
export const DEFAULT_LLM_MODEL = 'gpt-4o-mini';
/** Requests one callee turn may make: the answer, and follow-ups after tool-only answers. */
const MAX_ROUNDS = 3;
/** Bytes of one streamed response read at most (tool arguments included). */
const MAX_RESPONSE_BYTES = 512 * 1024;

export class LlmBrain implements Brain {
  readonly name = 'llm';
  constructor(
    private readonly config: LlmBrainConfig,
    private readonly log: BrainLog,
  ) {}

  start(context: BrainContext): BrainSession {
    return new LlmBrainSession(planFor(context), this.config, this.log);
  }
}

interface RoundResult {
  said: boolean;
  text: string;
  calls: AssembledCall[];
  error: string | null;
}

export class LlmBrainSession implements BrainSession {
  private readonly collected: Record<string, DetailValue> = {};
  private optedOut = false;
  private ended: ConversationEnd | null = null;
  private readonly model: string;

  constructor(
    private readonly plan: Plan,
    private readonly config: LlmBrainConfig,
    private readonly log: BrainLog,
  ) {
    this.model = config.model || plan.context.conversation.ai_model || DEFAULT_LLM_MODEL;
  }

  /** The agent's start_flow and first question, as the rule brain opens: instant, no model call. */
  async *open(): AsyncIterable<BrainAction> {
    yield* openDialogue(this.plan).actions;
  }

  async *respond(input: BrainInput, lines: readonly ConversationLine[]): AsyncIterable<BrainAction> {
    if (this.ended) return;
    switch (input.type) {
      case 'max_duration':
        yield* this.end([], 'max_duration');
        return;
      case 'silence':
        if (input.count <= 1) {
          yield { type: 'say', text: stillThere(lastQuestion(lines)) };
          yield this.expect();
        } else yield* this.end([LINES.silenceGoodbye], 'silence');
        return;
      case 'utterance':
        if (input.text.trim() === '') {
          // Nothing to send the model: after a cough that stopped the agent, its question again;
          // after words the recogniser could not make out, a request to repeat them.
          const again = input.interrupted ? lastQuestion(lines) : null;
          yield { type: 'say', text: again ?? LINES.fallback };
          yield this.expect();
        } else yield* this.answer(input.text, lines);
    }
  }

  private async *answer(heard: string, lines: readonly ConversationLine[]): AsyncGenerator<BrainAction> {
    const messages = chatMessages(systemPrompt(this.plan, this.collected), lines, heard);
    let saidAny = false;
    let end: ConversationEnd | null = null;
    let failed = false;
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const result = yield* this.round(messages);
      saidAny ||= result.said;
      if (result.error !== null) {
        failed = true;
        this.log.warn({ err: result.error, model: this.model, round }, 'llm brain: no usable answer');
        break;
      }
      const outcome = toolOutcome(result.calls, this.plan.context.conversation.collects, this.plan.today);
      if (outcome.rejected.length > 0) {
        this.log.warn({ rejected: outcome.rejected, model: this.model }, 'llm brain: tool calls dropped');
      }
      for (const [name, value] of outcome.records) this.collected[name] = value;
      this.optedOut ||= outcome.optedOut;
      yield* outcome.actions;
      end = outcome.end;
      // A model that only called tools has said nothing yet: it hears their results and answers.
      if (end !== null || saidAny || result.calls.length === 0) break;
      messages.push(...toolExchange(result));
    }
    if (end !== null) {
      yield* this.end([], end, saidAny);
      return;
    }
    if (!saidAny) {
      if (!failed) this.log.warn({ model: this.model }, 'llm brain: the model said nothing');
      yield { type: 'say', text: LINES.fallback };
    }
    yield this.expect();
  }

  /** One streamed request: sentences said as they complete, tool calls put together. */
  private async *round(messages: ChatMessage[]): AsyncGenerator<BrainAction, RoundResult> {
    const splitter = new SentenceSplitter();
    const tools = new ToolCallAssembler();
    const limit = this.config.maxResponseChars ?? 1200;
    let text = '';
    let said = false;
    try {
      for await (const delta of streamChatCompletion({
        baseUrl: this.config.baseUrl,
        apiKey: this.config.apiKey,
        body: {
          model: this.model,
          stream: true,
          messages,
          tools: toolDefinitions(this.plan.context.conversation.collects),
          tool_choice: 'auto',
          max_tokens: this.config.maxTokens ?? 300,
        },
        firstTokenTimeoutMs: this.config.timeoutMs,
        totalTimeoutMs: this.config.responseTimeoutMs ?? 30_000,
        maxBytes: MAX_RESPONSE_BYTES,
      })) {
        for (const piece of delta.toolCalls) tools.add(piece);
        if (!delta.content) continue;
        const room = limit - text.length;
        text += delta.content.slice(0, Math.max(0, room));
        for (const sentence of splitter.push(delta.content.slice(0, Math.max(0, room)))) {
          said = true;
          yield { type: 'say', text: sentence };
        }
        // Past the bound the rest is not spoken; what was said stands (and the stream is dropped).
        if (room <= delta.content.length) break;
      }
    } catch (error) {
      // Half a sentence is not spoken; tool calls of a broken stream are not trusted.
      return { said, text, calls: [], error: (error as Error).message };
    }
    const rest = splitter.flush();
    if (rest) {
      said = true;
      yield { type: 'say', text: rest };
    }
    return { said, text, calls: tools.calls(), error: null };
  }

  private *end(
    lead: readonly string[],
    reason: ConversationEnd,
    saidGoodbye = false,
  ): Generator<BrainAction> {
    this.ended = reason;
    // The model says its own goodbye before end_call; the closing line covers when it said nothing.
    const closing = saidGoodbye
      ? null
      : closingLine(this.plan.context.end_flow, this.plan.callee, this.plan.metadata);
    const text = joinSpoken(...lead, closing);
    if (text !== '') yield { type: 'say', text };
    yield { type: 'end_call', reason };
  }

  private expect(): BrainAction {
    return { type: 'expect', expect: pendingExpectation(this.plan, this.collected) };
  }

  voicemailMessage(): string {
    return voicemailMessage(this.plan);
  }

  async outcome(
    lines: readonly ConversationLine[],
    end: ConversationEnd | null,
  ): Promise<ConversationOutcome> {
    const callback = this.collected[CALLBACK_DETAIL];
    return outcomeOf(this.plan, lines, end, {
      collected: this.collected,
      optedOut: this.optedOut,
      callee:
        recordedName(this.plan.context.conversation.collects, this.collected) ?? this.plan.callee.fullName,
      callback: typeof callback === 'string' ? callback : null,
      heard: false,
    });
  }
}

/** The assistant's tool calls and their results, for the follow-up request. */
function toolExchange(result: RoundResult): ChatMessage[] {
  return [
    {
      role: 'assistant',
      content: result.text === '' ? null : result.text,
      tool_calls: result.calls.map((c) => ({
        id: c.id,
        type: 'function' as const,
        function: { name: c.name, arguments: c.arguments },
      })),
    },
    ...result.calls.map((c) => ({ role: 'tool' as const, tool_call_id: c.id, content: 'done' })),
  ];
}

function recordedName(
  details: readonly CollectedDetail[],
  collected: Record<string, DetailValue>,
): string | null {
  const named = details.find(
    (d) => d.type === 'string' && /(^|_)name$/.test(d.name) && typeof collected[d.name] === 'string',
  );
  return named ? (collected[named.name] as string) : null;
}
