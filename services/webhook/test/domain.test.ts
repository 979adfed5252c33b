import { createHmac, timingSafeEqual } from 'node:crypto';
import { CallEndedData, CallEndedPayload } from '@voice/shared';
import { sampleCall } from '@voice/shared/testing';
import { describe, expect, it } from 'vitest';
import { callEndedPayload } from '../src/domain/payload';
import { decideAfterAttempt, MAX_ATTEMPTS } from '../src/domain/policy';
import { sampleCallEndedPayload } from '../src/domain/sample-call';
import { signatureHeaders, signBody, signTimestamped } from '../src/domain/signature';

const failure = { ok: false as const, statusCode: 500, error: 'HTTP 500' };

describe('decideAfterAttempt', () => {
  it('ends on any success', () => {
    expect(decideAfterAttempt(1, { ok: true, statusCode: 204 }, 100)).toEqual({ outcome: 'succeeded' });
    expect(decideAfterAttempt(3, { ok: true, statusCode: 200 }, 100)).toEqual({ outcome: 'succeeded' });
  });

  it('retries with exponential backoff, then fails after 3 attempts in all', () => {
    expect(MAX_ATTEMPTS).toBe(3);
    expect(decideAfterAttempt(1, failure, 200)).toEqual({ outcome: 'retry', delayMs: 200 });
    expect(decideAfterAttempt(2, failure, 200)).toEqual({ outcome: 'retry', delayMs: 400 });
    expect(decideAfterAttempt(3, failure, 200)).toEqual({ outcome: 'failed' });
    expect(decideAfterAttempt(2, { ok: false, statusCode: null, error: 'ECONNREFUSED' }, 5000)).toEqual({
      outcome: 'retry',
      delayMs: 10_000,
    });
  });
});

describe('signatures', () => {
  const secret = 'a-very-secret-webhook-key';
  const body = Buffer.from('{"event":"CALL_ENDED","data":{"x":"é"}}', 'utf8');

  it('signs the raw body as lowercase hex HMAC-SHA256, verifiable by a receiver', () => {
    const signature = signBody(secret, body);
    expect(signature).toMatch(/^[0-9a-f]{64}$/);
    const expected = createHmac('sha256', secret).update(body).digest();
    expect(timingSafeEqual(Buffer.from(signature, 'hex'), expected)).toBe(true);
    expect(signBody('another-secret-of-length', body)).not.toBe(signature);
  });

  it('signs "<t>.<body>" in the timestamped form', () => {
    const value = signTimestamped(secret, body, 1_700_000_000);
    const mac = createHmac('sha256', secret)
      .update(`1700000000.${body.toString('utf8')}`)
      .digest('hex');
    expect(value).toBe(`t=1700000000,v1=${mac}`);
  });

  it('adds no signature headers without a secret', () => {
    expect(signatureHeaders(null, body)).toEqual({});
    const headers = signatureHeaders(secret, body, 1_700_000_000_500);
    expect(headers['X-Service-Signature']).toBe(signBody(secret, body));
    expect(headers['X-Service-Signature-Timestamped']).toBe(signTimestamped(secret, body, 1_700_000_000));
  });

  it('signs with every valid secret during a rotation: the newest alone in X-Service-Signature', () => {
    const old = 'o'.repeat(32);
    expect(signatureHeaders([], body)).toEqual({});
    const headers = signatureHeaders([secret, old], body, 1_700_000_000_500);
    expect(headers['X-Service-Signature']).toBe(signBody(secret, body));
    const mac = (key: string) => createHmac('sha256', key).update('1700000000.').update(body).digest('hex');
    expect(headers['X-Service-Signature-Timestamped']).toBe(`t=1700000000,v1=${mac(secret)},v1=${mac(old)}`);
    // One secret: the list form is the single-secret form, as agent webhooks have always sent it.
    expect(signatureHeaders([secret], body, 1_700_000_000_500)).toEqual(
      signatureHeaders(secret, body, 1_700_000_000_500),
    );
  });
});

describe('callEndedPayload', () => {
  const links = {
    baseUrl: 'https://voice.example',
    recordingSecret: 'r'.repeat(40),
    now: Date.UTC(2026, 0, 2),
  };

  it('has exactly the 6.3 fields, and telephony and opted_out', () => {
    const payload = callEndedPayload(sampleCall(), links);
    expect(payload.event).toBe('CALL_ENDED');
    expect(payload.timestamp).toBe('2026-01-02T00:00:00.000Z');
    expect(Object.keys(payload.data).sort()).toEqual(
      [
        'session_id',
        'phone_number',
        'direction',
        'status',
        'duration_seconds',
        'duration_minutes',
        'started_at',
        'ended_at',
        'agent_id',
        'agent_type',
        'sentiment',
        'call_summary',
        'call_end_reason',
        'ended_by',
        'details_collection',
        'transcript',
        'recording_url',
        'metadata',
        'ai_cost',
        'telephony_cost',
        'total_cost',
        'telephony',
        'opted_out',
      ].sort(),
    );
    expect(payload.data.opted_out).toBe(false);
    expect(callEndedPayload(sampleCall({ opted_out: true }), links).data.opted_out).toBe(true);
    expect(payload.data.telephony).toEqual({
      carrier: 'simulated',
      trunk_id: null,
      sip_code: 200,
      sip_reason: 'OK',
    });
    expect(payload.data.metadata).toEqual({});
    expect(payload.data.recording_url).toMatch(
      /^https:\/\/voice\.example\/v1\/recordings\/11111111-1111-4111-8111-111111111111\.wav\?expires=\d+&signature=[0-9a-f]{64}$/,
    );
  });

  it('is what the CallEndedPayload contract (the OpenAPI webhook) describes, field for field', () => {
    const payload = callEndedPayload(sampleCall(), links);
    expect(CallEndedPayload.safeParse(payload).error?.issues ?? []).toEqual([]);
    expect(Object.keys(payload.data).sort()).toEqual(Object.keys(CallEndedData.shape).sort());
    const test = sampleCallEndedPayload(
      {
        id: '22222222-2222-4222-8222-222222222222',
        name: 'Riley',
        agent_type: 'custom',
        industry: null,
        goal: 'Help',
        collects: [],
        language: 'en',
        voice: 'v',
        ai_model: 'm',
        start_flow: 'Hello.',
        end_flow: 'Goodbye.',
        prompt: 'p',
        prompt_hash: 'h',
        prompt_version_id: null,
      },
      { callId: '33333333-3333-4333-8333-333333333333', sessionId: '33333333-3333-4333-8333-333333333333' },
      links,
    );
    expect(CallEndedPayload.safeParse(test).error?.issues ?? []).toEqual([]);
  });

  it('keeps the metadata and adds the campaign id', () => {
    const campaignId = '33333333-3333-4333-8333-333333333333';
    const payload = callEndedPayload(sampleCall({ metadata: { crm: 'x' }, campaign_id: campaignId }), links);
    expect(payload.data.metadata).toEqual({ crm: 'x', campaign_id: campaignId });
  });

  it('has an empty recording_url (a string, never null) for a call never answered', () => {
    const payload = callEndedPayload(
      sampleCall({ status: 'no_answer', duration: 0, duration_seconds: 0, duration_minutes: 0 }),
      links,
    );
    expect(payload.data.recording_url).toBe('');
  });
});
