import type { CollectedDetail } from '@voice/shared/contracts';
import type { BrainAction, ConversationEnd } from '../../conversation/types';
import type { LocalNow } from './dates';
import { coerceDetailValue, type DetailValue } from './detail-values';

// The tools an LLM brain may call, their calls put together from streamed pieces, and those calls
// turned into brain actions. Everything from the model is untrusted: sizes are bounded and a call
// that does not fit its tool is dropped (and reported), never thrown.

export const TOOL_LIMITS = {
  /** Tool calls kept per response. */
  maxCalls: 8,
  /** Characters of one call's JSON arguments. */
  maxArgumentChars: 2000,
} as const;

/** Not a detail of the agent type but always recordable: when the callee wants a call back. */
export const CALLBACK_DETAIL = 'callback_time';

const END_REASONS: readonly ConversationEnd[] = [
  'completed',
  'not_interested',
  'call_back',
  'opted_out',
  'wrong_person',
  'silence',
  'max_duration',
];

/** The tools offered to the model, as chat-completions `tools`. */
export function toolDefinitions(details: readonly CollectedDetail[]): unknown[] {
  return [
    {
      type: 'function',
      function: {
        name: 'record_detail',
        description:
          'Record one detail the callee gave, as soon as they give it (enum details: one of the allowed values).',
        parameters: {
          type: 'object',
          properties: {
            name: { type: 'string', enum: [...details.map((d) => d.name), CALLBACK_DETAIL] },
            value: { type: ['string', 'number', 'boolean'] },
          },
          required: ['name', 'value'],
        },
      },
    },
    {
      type: 'function',
      function: {
        name: 'opt_out',
        description: 'The callee asked not to be called again: add them to the do-not-call list.',
        parameters: { type: 'object', properties: {} },
      },
    },
    {
      type: 'function',
      function: {
        name: 'end_call',
        description: 'Hang up after what you say in this answer. Say a short goodbye first.',
        parameters: {
          type: 'object',
          properties: { reason: { type: 'string', enum: END_REASONS.slice(0, 5) } },
          required: ['reason'],
        },
      },
    },
  ];
}

/** One streamed piece of a tool call (chat-completions `delta.tool_calls[i]`). */
export interface ToolCallPiece {
  index?: number | null;
  id?: string | null;
  name?: string | null;
  arguments?: string | null;
}

export interface AssembledCall {
  id: string;
  name: string;
  arguments: string;
  /** The arguments grew past the bound: the call is not usable. */
  overflow: boolean;
}

/** Puts tool calls together from their streamed pieces, within TOOL_LIMITS. */
export class ToolCallAssembler {
  private readonly byIndex = new Map<number, AssembledCall>();
  private last: number | null = null;

  add(piece: ToolCallPiece): void {
    // Some servers omit `index`: a new id starts a new call, no id continues the last one.
    let index = piece.index ?? null;
    if (index === null) {
      const current = this.last === null ? null : this.byIndex.get(this.last);
      index = current && (!piece.id || piece.id === current.id) ? this.last! : this.byIndex.size;
    }
    let call = this.byIndex.get(index);
    if (!call) {
      if (this.byIndex.size >= TOOL_LIMITS.maxCalls) return;
      call = { id: piece.id ?? `call_${index}`, name: '', arguments: '', overflow: false };
      this.byIndex.set(index, call);
    }
    this.last = index;
    if (piece.name) call.name = (call.name + piece.name).slice(0, 64);
    if (piece.arguments && !call.overflow) {
      call.arguments += piece.arguments;
      if (call.arguments.length > TOOL_LIMITS.maxArgumentChars) {
        call.overflow = true;
        call.arguments = '';
      }
    }
  }

  calls(): AssembledCall[] {
    return [...this.byIndex.entries()].sort(([a], [b]) => a - b).map(([, call]) => call);
  }
}

export interface ToolOutcome {
  /** record_detail and opt_out actions, in the order called. */
  actions: BrainAction[];
  records: [string, DetailValue][];
  optedOut: boolean;
  /** The first end_call's reason. */
  end: ConversationEnd | null;
  /** Calls dropped, with why (for a warning). */
  rejected: string[];
}

function parseArguments(call: AssembledCall): Record<string, unknown> | null {
  if (call.overflow) return null;
  if (call.arguments.trim() === '') return {};
  try {
    const parsed: unknown = JSON.parse(call.arguments);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

/** A reason the model gave in its own words, mapped onto the ends the record knows. */
function endReason(reason: unknown): ConversationEnd {
  if (typeof reason !== 'string') return 'completed';
  const r = reason.toLowerCase();
  if ((END_REASONS as readonly string[]).includes(r)) return r as ConversationEnd;
  if (/opt|do not call|don't call|remove/.test(r)) return 'opted_out';
  if (/wrong/.test(r)) return 'wrong_person';
  if (/call ?back|later|busy/.test(r)) return 'call_back';
  if (/not interested|declin|refus/.test(r)) return 'not_interested';
  return 'completed';
}

/** The model's tool calls as brain actions; calls that do not fit are dropped into `rejected`. */
export function toolOutcome(
  calls: readonly AssembledCall[],
  details: readonly CollectedDetail[],
  today: LocalNow,
): ToolOutcome {
  const out: ToolOutcome = { actions: [], records: [], optedOut: false, end: null, rejected: [] };
  for (const call of calls) {
    const args = parseArguments(call);
    if (args === null) {
      out.rejected.push(`${call.name || 'unnamed'}: arguments are not a JSON object within bounds`);
      continue;
    }
    switch (call.name) {
      case 'record_detail': {
        const name = typeof args.name === 'string' ? args.name : '';
        const detail =
          name === CALLBACK_DETAIL
            ? ({ name, type: 'string', description: '', required: false } satisfies CollectedDetail)
            : details.find((d) => d.name === name);
        const value = detail ? coerceDetailValue(detail, args.value, today) : null;
        if (!detail || value === null) {
          out.rejected.push(
            `record_detail: ${detail ? 'value does not fit' : 'unknown detail'} ${name.slice(0, 64)}`,
          );
          break;
        }
        out.records.push([detail.name, value]);
        out.actions.push({ type: 'record_detail', name: detail.name, value });
        break;
      }
      case 'opt_out':
        if (!out.optedOut) out.actions.push({ type: 'opt_out' });
        out.optedOut = true;
        break;
      case 'end_call':
        out.end ??= endReason(args.reason);
        break;
      default:
        out.rejected.push(`unknown tool ${call.name.slice(0, 64) || '(none)'}`);
    }
  }
  if (out.optedOut && out.end !== null) out.end = 'opted_out';
  return out;
}
