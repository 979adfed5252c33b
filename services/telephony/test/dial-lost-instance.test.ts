import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { infraModes } from '@voice/shared/testing';
import { answerScenario, type Sipp, startSipp } from '@voice/shared/testing/sip';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DialHarness, rtpRange, until } from './support/dial-harness';

// A telephony instance killed mid-call (SIGKILL: no BYE, no cleanup): another instance sees its
// lease lapse and ends the call, with exactly one `ended` event, and nothing dials it again.

describe.each(infraModes())('an instance killed mid-call (%s)', (mode) => {
  const h = new DialHarness(mode);
  let sipp: Sipp;
  let child: ChildProcess | undefined;

  beforeAll(async () => {
    await h.setUp();
    await h.start();
    sipp = await startSipp({ scenario: answerScenario({ sdp: true }), transport: 'udp', timeoutSeconds: 30 });
  }, 30_000);
  afterAll(async () => {
    child?.kill('SIGKILL');
    await sipp?.stop();
    await h.tearDown();
  }, 30_000);

  it('ends its answered call once, as completed cut off by carrier_error, from a surviving instance', async () => {
    const trunk = await h.trunk(sipp.uri);
    const callId = randomUUID();
    const ports = rtpRange();
    const min = Number(ports.RTP_PORT_MAX) + 1;
    child = spawn(
      process.execPath,
      ['--import', 'tsx', 'services/telephony/test/support/telephony-child.ts'],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
        env: {
          ...process.env,
          CHILD_DATABASE_URL: h.db.url,
          CHILD_DATA_DIR: h.recordings,
          CHILD_RTP_MIN: String(min),
          CHILD_RTP_MAX: String(min + 9),
          CHILD_CALL_ID: callId,
          CHILD_TRUNK_ID: trunk,
          CHILD_ACCOUNT_ID: h.accountId,
        },
      },
    );
    let output = '';
    child.stdout?.on('data', (c: Buffer) => {
      output += c.toString();
    });
    child.stderr?.on('data', (c: Buffer) => {
      output += c.toString();
    });
    const answered = async () => {
      const [row] = await h.sql<{ state: string; instance: string }[]>`
        SELECT state, instance FROM telephony.calls WHERE call_id = ${callId}`;
      return row?.state === 'answered';
    };
    await until(answered, 20_000, "the child's call answered").catch((error: Error) => {
      throw new Error(`${error.message}; the child said: ${output.slice(-1_500)}`);
    });
    const reply = JSON.parse(output.split('\n').find((line) => line.includes('"already"'))!) as {
      instance: string;
      already: boolean;
    };
    expect(reply.already).toBe(false);
    const exited = new Promise((resolve) => child!.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;

    const events = await h.ended(callId, 20_000);
    const ended = events.filter((e) => e.type === 'ended');
    expect(ended).toHaveLength(1);
    expect(ended[0]!.end).toMatchObject({
      status: 'completed',
      call_end_reason: 'carrier_error',
      ended_by: 'system',
      recorded: false,
    });
    expect(ended[0]!.end!.answered_at).not.toBeNull();
    expect(ended[0]!.end!.detail).toContain(reply.instance);
    expect(ended[0]!.sequence).toBe(3);
    // The dead instance is forgotten once its calls ended; no event is left to publish.
    await until(
      async () => (await h.sql`SELECT 1 FROM telephony.instances WHERE id = ${reply.instance}`).length === 0,
      10_000,
      'the dead instance forgotten',
    );
    // Rows the killed relay had claimed but not yet deleted (published or not) are published again
    // once their claim lease (the publish timeout plus 30 s) lapses: they are not lost.
    await until(
      async () => (await h.sql`SELECT 1 FROM telephony.outbox`).length === 0,
      90_000,
      'the outbox drained',
    );
    expect(h.of(callId).filter((e) => e.type === 'ended')).toHaveLength(1);
    // Nothing dials it again: a re-sent dial is answered from the row.
    expect(await h.dial(trunk, callId, { start_flow: 'x', end_flow: 'y' })).toMatchObject({ already: true });
    const [slots] = await h.sql`SELECT count(*)::int AS n FROM telephony.trunk_calls`;
    expect(slots!.n).toBe(0);
  }, 180_000);
});
