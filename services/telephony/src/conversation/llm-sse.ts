import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { z } from 'zod';
import type { ToolCallPiece } from '../domain/conversation/llm-tools';

// A streaming chat-completions client for any OpenAI-compatible endpoint: POST with `stream: true`,
// read the server-sent events as they arrive, yield each chunk's delta. SSE framing is left to
// eventsource-parser; fetch is Node's own. The official `openai` SDK is not used: it retries on its
// own, and it bounds neither the time to the first token nor the bytes of a response, which a live
// call needs. Everything the server sends is untrusted: sizes and times are bounded here.

export interface ChatDelta {
  content: string | null;
  toolCalls: readonly ToolCallPiece[];
  finishReason: string | null;
}

export interface ChatStreamRequest {
  /** `https://host/v1`: `/chat/completions` is appended. */
  baseUrl: string;
  apiKey: string;
  body: Record<string, unknown>;
  /** Until the first content or tool-call delta arrives (headers included). */
  firstTokenTimeoutMs: number;
  /** The whole response. */
  totalTimeoutMs: number;
  /** Bytes of the response body read at most. */
  maxBytes: number;
  signal?: AbortSignal;
}

export type LlmFailure = 'http' | 'timeout' | 'protocol' | 'too_large' | 'network';

/** The stream could not be used. Its message never holds the API key. */
export class LlmStreamError extends Error {
  override readonly name = 'LlmStreamError';
  constructor(
    readonly kind: LlmFailure,
    message: string,
  ) {
    super(message);
  }
}

/** Largest single SSE event accepted (a chunk is small; a huge one is a broken server). */
const MAX_EVENT = 64 * 1024;

const Chunk = z.object({
  choices: z
    .array(
      z.object({
        delta: z
          .object({
            content: z.string().nullish(),
            tool_calls: z
              .array(
                z.object({
                  index: z.number().int().min(0).max(1000).nullish(),
                  id: z.string().max(200).nullish(),
                  function: z
                    .object({ name: z.string().nullish(), arguments: z.string().nullish() })
                    .nullish(),
                }),
              )
              .max(64)
              .nullish(),
          })
          .nullish(),
        finish_reason: z.string().max(100).nullish(),
      }),
    )
    .max(16)
    .default([]),
  error: z.unknown().optional(),
});

function deltaOf(data: string): ChatDelta | null {
  let json: unknown;
  try {
    json = JSON.parse(data);
  } catch {
    throw new LlmStreamError('protocol', 'a stream chunk is not JSON');
  }
  const parsed = Chunk.safeParse(json);
  if (!parsed.success) throw new LlmStreamError('protocol', 'a stream chunk is not a chat-completions chunk');
  if (parsed.data.error !== undefined) throw new LlmStreamError('protocol', 'the stream reported an error');
  const choice = parsed.data.choices[0];
  if (!choice) return null;
  return {
    content: choice.delta?.content ?? null,
    toolCalls: (choice.delta?.tool_calls ?? []).map((t) => ({
      index: t.index ?? null,
      id: t.id ?? null,
      name: t.function?.name ?? null,
      arguments: t.function?.arguments ?? null,
    })),
    finishReason: choice.finish_reason ?? null,
  };
}

export function chatCompletionsUrl(baseUrl: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/chat/completions`;
}

/** A short reason from an error body ("model not found"), without echoing anything long. */
async function errorReason(response: Response): Promise<string> {
  try {
    const text = (await response.text()).slice(0, 2000);
    const message = (JSON.parse(text) as { error?: { message?: unknown } }).error?.message;
    return typeof message === 'string' ? `: ${message.slice(0, 200)}` : '';
  } catch {
    return '';
  }
}

/** The chunks of one streamed chat completion, as they arrive. Throws LlmStreamError. */
export async function* streamChatCompletion(request: ChatStreamRequest): AsyncGenerator<ChatDelta> {
  const controller = new AbortController();
  let failure: LlmStreamError | null = null;
  const abort = (error: LlmStreamError) => {
    failure ??= error;
    controller.abort();
  };
  const firstToken = setTimeout(
    () => abort(new LlmStreamError('timeout', `no token within ${request.firstTokenTimeoutMs} ms`)),
    request.firstTokenTimeoutMs,
  );
  const total = setTimeout(
    () => abort(new LlmStreamError('timeout', `the response took over ${request.totalTimeoutMs} ms`)),
    request.totalTimeoutMs,
  );
  const onOuterAbort = () => abort(new LlmStreamError('network', 'cancelled'));
  request.signal?.addEventListener('abort', onOuterAbort, { once: true });
  const failed = (error: unknown): LlmStreamError =>
    failure ??
    (error instanceof LlmStreamError ? error : new LlmStreamError('network', (error as Error).message));

  try {
    let response: Response;
    try {
      response = await fetch(chatCompletionsUrl(request.baseUrl), {
        method: 'POST',
        headers: {
          authorization: `Bearer ${request.apiKey}`,
          'content-type': 'application/json',
          accept: 'text/event-stream',
        },
        body: JSON.stringify(request.body),
        signal: controller.signal,
      });
    } catch (error) {
      throw failed(error);
    }
    if (!response.ok)
      throw new LlmStreamError('http', `HTTP ${response.status}${await errorReason(response)}`);
    if (!(response.headers.get('content-type') ?? '').includes('text/event-stream')) {
      throw new LlmStreamError(
        'protocol',
        `not an event stream (${response.headers.get('content-type') ?? 'no type'})`,
      );
    }
    if (!response.body) throw new LlmStreamError('protocol', 'no response body');

    const events: EventSourceMessage[] = [];
    const parser = createParser({
      onEvent: (event) => events.push(event),
      // Unknown fields are ignored, as the SSE standard says; an event past the bound is not.
      onError: (error) => {
        if (error.type === 'max-buffer-size-exceeded')
          abort(new LlmStreamError('too_large', 'an event is too large'));
      },
      maxBufferSize: MAX_EVENT,
    });
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let bytes = 0;
    try {
      for (;;) {
        let read: Awaited<ReturnType<typeof reader.read>>;
        try {
          read = await reader.read();
        } catch (error) {
          throw failed(error);
        }
        if (failure) throw failure;
        if (read.done) return;
        bytes += read.value.byteLength;
        if (bytes > request.maxBytes)
          throw new LlmStreamError('too_large', `the response passed ${request.maxBytes} bytes`);
        parser.feed(decoder.decode(read.value, { stream: true }));
        if (failure) throw failure;
        while (events.length > 0) {
          const event = events.shift()!;
          if (event.data === '[DONE]') return;
          const delta = deltaOf(event.data);
          if (!delta) continue;
          if (delta.content || delta.toolCalls.length > 0) clearTimeout(firstToken);
          yield delta;
        }
      }
    } finally {
      // Stops the download whether the stream ended, failed or the consumer stopped reading.
      controller.abort();
      reader.releaseLock();
    }
  } finally {
    clearTimeout(firstToken);
    clearTimeout(total);
    request.signal?.removeEventListener('abort', onOuterAbort);
  }
}
