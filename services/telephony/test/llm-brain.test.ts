import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '@voice/shared';
import type { CollectedDetail } from '@voice/shared/contracts';
import { pino } from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { conversationEngines } from '../src/conversation/engines';
import { type BrainLog, LlmBrain, type LlmBrainConfig } from '../src/conversation/llm-brain';
import type { BrainAction, BrainContext, BrainInput, ConversationLine } from '../src/conversation/types';

// A protocol test of the LLM brain. No hosted model is reachable from here (no internet, no model
// weights), so a local HTTP server on loopback speaks the streaming chat-completions protocol the
// way OpenAI-compatible servers do: SSE `data: {...}` chunks with `choices[0].delta.content` and
// `delta.tool_calls` pieces, then `data: [DONE]`. It checks each request and streams scripted
// answers, pausing where a test needs to see what the brain did before the stream ends.

const API_KEY = 'sk-test-not-a-real-key';

type Handler = (
  request: { body: Record<string, unknown>; headers: IncomingMessage['headers'] },
  res: ServerResponse,
) => Promise<void> | void;

const handlers: Handler[] = [];
const requests: { body: Record<string, unknown>; headers: IncomingMessage['headers'] }[] = [];
let server: Server;
let baseUrl: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => {
      const request = {
        body: JSON.parse(Buffer.concat(parts).toString('utf8')) as Record<string, unknown>,
        headers: req.headers,
      };
      requests.push(request);
      const handler = handlers.shift();
      if (!handler) {
        res.writeHead(503).end();
        return;
      }
      void handler(request, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
  handlers.length = 0;
  requests.length = 0;
});

const sse = (res: ServerResponse) =>
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
  `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
const toolPiece = (index: number, piece: { id?: string; name?: string; arguments?: string }) =>
  chunk({
    tool_calls: [
      {
        index,
        ...(piece.id ? { id: piece.id, type: 'function' } : {}),
        function: { ...(piece.name ? { name: piece.name } : {}), arguments: piece.arguments ?? '' },
      },
    ],
  });
const DONE = 'data: [DONE]\n\n';

/** Streams `pieces` in order, each one written separately (a flush per piece), then ends. */
function streams(...pieces: string[]): Handler {
  return (_request, res) => {
    sse(res);
    for (const piece of pieces) res.write(piece);
    res.end();
  };
}

const COLLECTS: CollectedDetail[] = [
  {
    name: 'intent',
    type: 'enum',
    description: 'What the lead wants to do.',
    required: true,
    options: ['buy', 'sell', 'rent', 'invest'],
  },
  { name: 'budget', type: 'number', description: 'Maximum budget.', required: true },
];

const context: BrainContext = {
  conversation: {
    agent_name: 'Riley',
    agent_type: 'real_estate_lead_qualifier',
    goal: 'Find out what the lead wants and their budget.',
    prompt: 'You are Riley, an upbeat inside sales associate for Acme Realty.',
    ai_model: 'acme-chat-1',
    collects: COLLECTS,
    metadata: { name: 'Jordan Lee', source: 'website form' },
    max_duration_seconds: 300,
  },
  language: 'en',
  start_flow: 'Hi, this is Riley from Acme Realty.',
  end_flow: 'Thanks for your time, goodbye!',
  source_number: '+15550100199',
  now: new Date('2025-06-04T15:00:00Z'),
};

class Warnings implements BrainLog {
  readonly lines: string[] = [];
  warn(fields: Record<string, unknown>, message: string): void {
    this.lines.push(`${message} ${JSON.stringify(fields)}`);
  }
}

function brain(overrides: Partial<LlmBrainConfig> = {}, log = new Warnings()) {
  return new LlmBrain({ baseUrl, apiKey: API_KEY, timeoutMs: 5_000, ...overrides }, log);
}

const heard = (text: string): BrainInput => ({
  type: 'utterance',
  text,
  confidence: 0.7,
  interrupted: false,
});
const LINES: ConversationLine[] = [
  { role: 'agent', text: 'Hi Jordan, this is Riley from Acme Realty. Am I speaking with Jordan?' },
  { role: 'user', text: 'yes this is jordan' },
];

async function all(actions: AsyncIterable<BrainAction>): Promise<BrainAction[]> {
  const out: BrainAction[] = [];
  for await (const action of actions) out.push(action);
  return out;
}

describe('the LLM brain over a streaming chat-completions endpoint', () => {
  it('sends the agent prompt, the call, the lines and the tools, with the key as a bearer token', async () => {
    handlers.push(
      streams(
        chunk({ role: 'assistant', content: '' }),
        chunk({ content: 'Great, Jordan. Are you buying or selling?' }),
        DONE,
      ),
    );
    const session = brain().start(context);
    const actions = await all(session.respond(heard('yes this is jordan'), LINES));

    expect(actions).toEqual([
      { type: 'say', text: 'Great, Jordan.' },
      { type: 'say', text: 'Are you buying or selling?' },
      { type: 'expect', expect: { slots: ['yes_no'], phrases: ['buy', 'sell', 'rent', 'invest'] } },
    ]);
    expect(requests).toHaveLength(1);
    const { body, headers } = requests[0]!;
    expect(headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(body.model).toBe('acme-chat-1');
    expect(body.stream).toBe(true);
    const messages = body.messages as { role: string; content: string }[];
    expect(messages.map((m) => m.role)).toEqual(['system', 'assistant', 'user']);
    expect(
      messages[0]!.content.startsWith('You are Riley, an upbeat inside sales associate for Acme Realty.'),
    ).toBe(true);
    expect(messages[0]!.content).toContain('"source":"website form"');
    expect(messages[0]!.content).toContain(
      '- intent (enum, required): What the lead wants to do. Allowed values: buy ("buy")',
    );
    expect(messages[0]!.content).toContain('Today is Wednesday, June 4, 2025 (2025-06-04).');
    expect(messages[2]!.content).toBe('yes this is jordan');
    const tools = body.tools as { function: { name: string } }[];
    expect(tools.map((t) => t.function.name)).toEqual(['record_detail', 'opt_out', 'end_call']);
  });

  it('speaks the first sentence before the stream has ended', async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let ended = false;
    handlers.push(async (_request, res) => {
      sse(res);
      res.write(chunk({ content: 'Thanks, Jordan' }));
      res.write(chunk({ content: '. Could you tell me ' }));
      // The rest waits until the test has seen the first sentence.
      await released;
      res.write(chunk({ content: 'your budget?' }));
      res.write(DONE);
      res.end();
      ended = true;
    });
    const actions: BrainAction[] = [];
    let endedAtFirstSay: boolean | null = null;
    for await (const action of brain().start(context).respond(heard('sell'), LINES)) {
      if (action.type === 'say' && endedAtFirstSay === null) {
        endedAtFirstSay = ended;
        release();
      }
      actions.push(action);
    }
    expect(endedAtFirstSay).toBe(false);
    expect(actions.filter((a) => a.type === 'say')).toEqual([
      { type: 'say', text: 'Thanks, Jordan.' },
      { type: 'say', text: 'Could you tell me your budget?' },
    ]);
  });

  it('assembles streamed tool calls into actions and ends the call on end_call', async () => {
    handlers.push(
      streams(
        chunk({ content: 'Perfect, selling it is.' }),
        toolPiece(0, { id: 'call_a', name: 'record_detail', arguments: '{"name": "int' }),
        toolPiece(0, { arguments: 'ent", "value": "selling"}' }),
        toolPiece(1, { id: 'call_b', name: 'record_detail', arguments: '{"name":"budget",' }),
        toolPiece(1, { arguments: '"value":"350000"}' }),
        toolPiece(2, { id: 'call_c', name: 'end_call', arguments: '{"reason":"completed"}' }),
        chunk({}, 'tool_calls'),
        DONE,
      ),
    );
    const session = brain().start(context);
    const actions = await all(
      session.respond(heard('i want to sell for about three hundred fifty thousand'), LINES),
    );
    expect(actions).toEqual([
      { type: 'say', text: 'Perfect, selling it is.' },
      { type: 'record_detail', name: 'intent', value: 'sell' },
      { type: 'record_detail', name: 'budget', value: 350_000 },
      { type: 'end_call', reason: 'completed' },
    ]);
    // After the end nothing more is asked of the model.
    expect(await all(session.respond(heard('bye'), LINES))).toEqual([]);
    const outcome = await session.outcome([...LINES, { role: 'user', text: 'great thanks' }], 'completed');
    expect(outcome.collected).toEqual({ intent: 'sell', budget: 350_000 });
    expect(outcome.opted_out).toBe(false);
    expect(outcome.sentiment).toBe('positive');
    expect(outcome.summary).toBe(
      'Riley (real estate lead qualifier) spoke with Jordan Lee. Collected: intent sell and budget 350,000. The conversation was completed.',
    );
  });

  it('opt_out and end_call: the callee is opted out and the call ends as opted out', async () => {
    handlers.push(
      streams(
        chunk({ content: "Of course, I'll remove your number. Goodbye." }),
        toolPiece(0, { id: 'x1', name: 'opt_out', arguments: '{}' }),
        toolPiece(1, { id: 'x2', name: 'end_call', arguments: '{"reason":"not_interested"}' }),
        DONE,
      ),
    );
    const session = brain().start(context);
    const actions = await all(session.respond(heard('stop calling me'), LINES));
    expect(actions.map((a) => a.type)).toEqual(['say', 'say', 'opt_out', 'end_call']);
    expect(actions.at(-1)).toEqual({ type: 'end_call', reason: 'opted_out' });
    const outcome = await session.outcome([...LINES, { role: 'user', text: 'stop calling me' }], 'opted_out');
    expect(outcome.opted_out).toBe(true);
    expect(outcome.sentiment).toBe('negative');
  });

  it('a tool-only answer gets a follow-up request carrying the tool results, and its words are spoken', async () => {
    handlers.push(
      streams(
        toolPiece(0, { id: 'call_1', name: 'record_detail', arguments: '{"name":"intent","value":"buy"}' }),
        chunk({}, 'tool_calls'),
        DONE,
      ),
      streams(chunk({ content: 'Got it. What budget do you have in mind?' }), DONE),
    );
    const actions = await all(brain().start(context).respond(heard('buying'), LINES));
    expect(actions).toEqual([
      { type: 'record_detail', name: 'intent', value: 'buy' },
      { type: 'say', text: 'Got it.' },
      { type: 'say', text: 'What budget do you have in mind?' },
      { type: 'expect', expect: { slots: ['yes_no', 'number'], phrases: [] } },
    ]);
    expect(requests).toHaveLength(2);
    const followUp = (requests[1]!.body.messages as Record<string, unknown>[]).slice(-2);
    expect(followUp).toEqual([
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'call_1',
            type: 'function',
            function: { name: 'record_detail', arguments: '{"name":"intent","value":"buy"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: 'done' },
    ]);
  });

  it('an HTTP 500 becomes the fallback line and a warning that does not hold the key', async () => {
    handlers.push((_request, res) => {
      res
        .writeHead(500, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: { message: 'upstream exploded' } }));
    });
    const log = new Warnings();
    const actions = await all(brain({}, log).start(context).respond(heard('sell'), LINES));
    expect(actions).toEqual([
      { type: 'say', text: 'Sorry, could you say that again?' },
      { type: 'expect', expect: { slots: ['yes_no'], phrases: ['buy', 'sell', 'rent', 'invest'] } },
    ]);
    expect(log.lines).toHaveLength(1);
    expect(log.lines[0]).toContain('HTTP 500: upstream exploded');
    expect(log.lines.join('\n')).not.toContain(API_KEY);
  });

  it('no first token in time becomes the fallback line and a warning', async () => {
    // The server sends headers and then nothing, as a stalled model does.
    handlers.push((_request, res) => {
      sse(res);
      res.write(': keep-alive\n\n');
    });
    const log = new Warnings();
    const actions = await all(brain({ timeoutMs: 300 }, log).start(context).respond(heard('sell'), LINES));
    expect(actions[0]).toEqual({ type: 'say', text: 'Sorry, could you say that again?' });
    expect(actions.at(-1)?.type).toBe('expect');
    expect(log.lines[0]).toContain('no token within 300 ms');
  });

  it.each([
    ['a chunk that is not JSON', ['data: {"choices": [{"delta": {"content": "Hel\n\n']],
    ['a chunk of the wrong shape', ['data: {"choices": "nope"}\n\n']],
    ['an error event', ['data: {"error": {"message": "overloaded"}}\n\n']],
    ['no events at all', [DONE]],
  ])('%s becomes the fallback line', async (_what, pieces) => {
    handlers.push(streams(...pieces));
    const log = new Warnings();
    const actions = await all(brain({}, log).start(context).respond(heard('sell'), LINES));
    expect(actions[0]).toEqual({ type: 'say', text: 'Sorry, could you say that again?' });
    expect(actions.at(-1)?.type).toBe('expect');
    expect(log.lines).toHaveLength(1);
  });

  it('drops tool calls that do not fit (bad JSON, unknown tool or detail, wrong value, oversized) and goes on', async () => {
    handlers.push(
      streams(
        chunk({ content: 'Okay.' }),
        toolPiece(0, { id: 'a', name: 'record_detail', arguments: '{"name":"intent",' }),
        toolPiece(1, { id: 'b', name: 'launch_rocket', arguments: '{}' }),
        toolPiece(2, {
          id: 'c',
          name: 'record_detail',
          arguments: '{"name":"favourite_colour","value":"red"}',
        }),
        toolPiece(3, { id: 'd', name: 'record_detail', arguments: '{"name":"budget","value":"lots"}' }),
        toolPiece(4, {
          id: 'e',
          name: 'record_detail',
          arguments: `{"name":"intent","value":"${'x'.repeat(5000)}"}`,
        }),
        DONE,
      ),
    );
    const log = new Warnings();
    const actions = await all(brain({}, log).start(context).respond(heard('hmm'), LINES));
    expect(actions.map((a) => a.type)).toEqual(['say', 'expect']);
    expect(log.lines).toHaveLength(1);
    expect(log.lines[0]).toContain('launch_rocket');
  });

  it('speaks no more than the bound of one answer', async () => {
    const long = 'This sentence goes on and on. '.repeat(200);
    handlers.push(streams(...long.match(/.{1,50}/gs)!.map((piece) => chunk({ content: piece })), DONE));
    const actions = await all(
      brain({ maxResponseChars: 300 }).start(context).respond(heard('tell me more'), LINES),
    );
    const spoken = actions.flatMap((a) => (a.type === 'say' ? [a.text] : [])).join(' ');
    expect(spoken.length).toBeGreaterThan(0);
    expect(spoken.length).toBeLessThanOrEqual(300);
    expect(actions.at(-1)?.type).toBe('expect');
  });

  it('silence and the maximum duration use the rule phrasing, without a request', async () => {
    const session = brain().start(context);
    const lines: ConversationLine[] = [
      ...LINES,
      { role: 'agent', text: 'Great. Are you buying or selling?' },
    ];
    expect(await all(session.respond({ type: 'silence', count: 1 }, lines))).toEqual([
      { type: 'say', text: 'Are you still there? Are you buying or selling?' },
      { type: 'expect', expect: { slots: ['yes_no'], phrases: ['buy', 'sell', 'rent', 'invest'] } },
    ]);
    expect(await all(session.respond({ type: 'max_duration' }, lines))).toEqual([
      { type: 'say', text: 'Thanks for your time, goodbye!' },
      { type: 'end_call', reason: 'max_duration' },
    ]);
    const other = brain().start(context);
    expect(await all(other.respond({ type: 'silence', count: 2 }, lines))).toEqual([
      { type: 'say', text: "It seems I can't hear you, so I'll let you go. Thanks for your time, goodbye!" },
      { type: 'end_call', reason: 'silence' },
    ]);
    expect(requests).toHaveLength(0);
  });

  it('no words heard: the last question again after a cough, or a request to repeat, without a request', async () => {
    const session = brain().start(context);
    const lines: ConversationLine[] = [
      ...LINES,
      { role: 'agent', text: 'Great. Are you buying or' },
      { role: 'agent', text: 'Thanks. What is your budget?' },
    ];
    const cough = await all(
      session.respond({ type: 'utterance', text: '', confidence: 0, interrupted: true }, lines),
    );
    expect(cough[0]).toEqual({ type: 'say', text: 'What is your budget?' });
    const unclear = await all(
      session.respond({ type: 'utterance', text: ' ', confidence: 0, interrupted: false }, lines),
    );
    expect(unclear[0]).toEqual({ type: 'say', text: 'Sorry, could you say that again?' });
    expect(unclear.at(-1)?.type).toBe('expect');
    expect(requests).toHaveLength(0);
  });

  it('opens with the start flow and leaves the voicemail without a request', async () => {
    const session = brain().start(context);
    expect((await all(session.open()))[0]).toEqual({
      type: 'say',
      text: 'Hi Jordan, this is Riley from Acme Realty. Am I speaking with Jordan?',
    });
    expect(session.voicemailMessage()).toContain(
      'Please call us back at one, five five five, zero one zero, zero one nine nine.',
    );
    expect(requests).toHaveLength(0);
  });

  it('uses a configured model over the agent model', async () => {
    handlers.push(streams(chunk({ content: 'Sure.' }), DONE));
    await all(brain({ model: 'override-model' }).start(context).respond(heard('ok'), LINES));
    expect(requests[0]!.body.model).toBe('override-model');
  });
});

describe('choosing a brain', () => {
  it('runs the rule brain by default, the LLM brain when CONVERSATION_BRAIN=llm, and refuses llm without its URL', () => {
    const log = pino({ level: 'silent' });
    expect(conversationEngines(loadConfig({}), log).brain.name).toBe('rules');
    const config = loadConfig({ CONVERSATION_BRAIN: 'llm', LLM_BASE_URL: baseUrl, LLM_API_KEY: API_KEY });
    expect(conversationEngines(config, log).brain.name).toBe('llm');
    expect(() => loadConfig({ CONVERSATION_BRAIN: 'llm' })).toThrow(/LLM_BASE_URL/);
    expect(() => loadConfig({ TTS_ENGINE: 'openai' })).toThrow(/SPEECH_BASE_URL/);
  });
});
