/**
 * Creates an agent, places a call and follows its status until it ends.
 *
 *   VOICE_API_URL=http://127.0.0.1:3000 VOICE_API_KEY=vk_... pnpm --filter @voice/client example
 *
 * VOICE_FROM and VOICE_TO choose the numbers (E.164); the simulated carrier answers any.
 */
import { randomUUID } from 'node:crypto';
import { createVoiceClient, idempotent, isVoiceError, type Outputs } from '../src/index';

type Call = Outputs['calls']['get'];

const url = process.env.VOICE_API_URL ?? 'http://127.0.0.1:3000';
const apiKey = process.env.VOICE_API_KEY;
if (!apiKey) {
  console.error('Set VOICE_API_KEY (pnpm start prints a development key) and VOICE_API_URL.');
  process.exit(2);
}
const client = createVoiceClient({ url, apiKey });

async function main(): Promise<Call> {
  const types = await client.discovery.agentTypes.query({ industry: 'real_estate' });
  const agent = await client.agents.create.mutate({
    name: 'Example agent',
    agent_type: types[0]?.id ?? 'support',
    start_flow: 'Hi, this is the example agent from Acme Realty.',
    end_flow: 'Thanks for your time, goodbye!',
  });
  console.log(`agent ${agent.id} (${agent.name})`);

  // Subscribe first (by agent), then place the call, so no transition is missed.
  return new Promise<Call>((resolve, reject) => {
    let callId: string | undefined;
    const subscription = client.calls.onStatus.subscribe(
      { agent_id: agent.id },
      {
        onStarted: async () => {
          try {
            const call = await client.calls.create.mutate(
              {
                agent_id: agent.id,
                source_number: process.env.VOICE_FROM ?? '+14155550100',
                phone_number: process.env.VOICE_TO ?? '+14155550123',
                metadata: { example: true },
              },
              idempotent(randomUUID()),
            );
            callId = call.id;
            console.log(`call ${call.id} placed`);
          } catch (error) {
            subscription.unsubscribe();
            reject(error);
          }
        },
        onData: ({ data: call }) => {
          if (callId !== undefined && call.id !== callId) return;
          console.log(`  ${new Date().toISOString()}  ${call.status}`);
          if (call.ended_at !== null) {
            subscription.unsubscribe();
            resolve(call);
          }
        },
        onError: (error) => reject(error),
      },
    );
  });
}

main()
  .then((call) => {
    console.log(`ended: ${call.status} after ${call.duration_seconds} s, sentiment ${call.sentiment}`);
    console.log(`carrier: ${call.telephony.carrier} (SIP ${call.telephony.sip_code ?? '-'})`);
    if (call.call_summary) console.log(`summary: ${call.call_summary}`);
    // "" when the call produced no audio.
    if (call.recording_url) console.log(`recording: ${call.recording_url}`);
  })
  .catch((error: unknown) => {
    if (isVoiceError(error)) console.error(`${error.data?.code ?? 'ERROR'}: ${error.message}`);
    else console.error(error);
    process.exitCode = 1;
  });
