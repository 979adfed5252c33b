import { infraModes } from '@voice/shared/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  type CampaignSuite,
  campaignSuite,
  completingNumbers,
  dialsPerNumber,
  maxOverlap,
} from './campaigns-support';

/** A completed call takes ~0.2-0.4 s of wall time, an unanswered one ~0.12 s. */
const SIM_TIME_SCALE = 0.004;

describe.each(infraModes())('campaigns: pause, resume, cancel, schedule (%s)', (mode) => {
  const suite = campaignSuite(mode, SIM_TIME_SCALE);
  const { settings, contactsOf } = suite;
  let api: CampaignSuite['api'];
  beforeAll(() => {
    ({ api } = suite);
  });

  it('pauses (calls in flight finish, nobody new is dialed) and resumes; wrong-state operations are 409', async () => {
    const numbers = completingNumbers(8, '+1415556');
    const created = await api.create(settings({ contacts: contactsOf(numbers), max_concurrent_calls: 2 }));
    await api.waitFor(created.id, (c) => c.counts.in_progress > 0);
    const paused = await api.send('POST', `/v1/campaigns/${created.id}/pause`);
    expect(paused.status, paused.text).toBe(200);
    expect(paused.body.data.status).toBe('paused');
    const left = paused.body.data.counts.pending;
    expect(left).toBeGreaterThan(0);

    const again = await api.send('POST', `/v1/campaigns/${created.id}/pause`);
    expect(again.status).toBe(409);
    expect(again.body.detail).toBe('Cannot pause a campaign that is paused (status: paused)');

    // The calls in flight end and are recorded; the campaign stays paused and dials nobody new.
    const settled = await api.waitFor(created.id, (c) => c.counts.in_progress === 0);
    await new Promise((r) => setTimeout(r, 600));
    const still = await api.get(created.id);
    expect(still.status).toBe('paused');
    expect(still.counts).toEqual(settled.counts);
    expect(still.counts.pending).toBe(left);
    expect(still.counts.completed).toBe(8 - left);
    expect(await api.calls(created.id)).toHaveLength(8 - left);

    const resumed = await api.send('POST', `/v1/campaigns/${created.id}/resume`);
    expect(resumed.status).toBe(200);
    expect(resumed.body.data.status).toBe('running');
    const done = await api.waitFor(created.id, (c) => c.status === 'completed');
    expect(done.counts.completed).toBe(8);
    const calls = await api.calls(created.id);
    expect(dialsPerNumber(calls)).toEqual(new Map(numbers.map((n) => [n, 1])));
    expect(maxOverlap(calls)).toBeLessThanOrEqual(2);

    for (const op of ['pause', 'resume', 'cancel']) {
      const res = await api.send('POST', `/v1/campaigns/${created.id}/${op}`);
      expect(res.status, op).toBe(409);
      expect(res.body.detail).toBe(`Cannot ${op} a campaign that is completed (status: completed)`);
    }
  });

  it('cancels: the contacts not dialed yet are cancelled, calls in flight finish and are recorded', async () => {
    const numbers = completingNumbers(10, '+1415557');
    const created = await api.create(settings({ contacts: contactsOf(numbers), max_concurrent_calls: 2 }));
    await api.waitFor(created.id, (c) => c.counts.in_progress > 0);
    const cancelled = await api.send('POST', `/v1/campaigns/${created.id}/cancel`);
    expect(cancelled.status, cancelled.text).toBe(200);
    expect(cancelled.body.data).toMatchObject({ status: 'cancelled', finished_at: expect.any(String) });
    const { counts } = cancelled.body.data;
    expect(counts.pending).toBe(0);
    expect(counts.cancelled).toBeGreaterThan(0);
    const dialed = 10 - counts.cancelled;

    const settled = await api.waitFor(created.id, (c) => c.counts.in_progress === 0);
    expect(settled.status).toBe('cancelled');
    expect(settled.counts).toMatchObject({ completed: dialed, cancelled: 10 - dialed, pending: 0 });
    await new Promise((r) => setTimeout(r, 300));
    expect(await api.calls(created.id)).toHaveLength(dialed);
    const cancelledContacts = await api.contacts(created.id, 'cancelled');
    expect(cancelledContacts).toHaveLength(10 - dialed);
    for (const contact of cancelledContacts) expect(contact).toMatchObject({ attempts: 0, call_ids: [] });

    for (const op of ['pause', 'resume', 'cancel']) {
      const res = await api.send('POST', `/v1/campaigns/${created.id}/${op}`);
      expect(res.status).toBe(409);
      expect(res.body.detail).toBe(`Cannot ${op} a campaign that is cancelled (status: cancelled)`);
    }
  });

  it('schedules a campaign with start_at: scheduled until then, then runs; a scheduled one can be cancelled', async () => {
    // Far enough ahead for the three requests below to see it still scheduled on a loaded machine.
    const startAt = new Date(Date.now() + 4_000).toISOString();
    const created = await api.create(settings({ contacts: contactsOf(['+14155558000']), start_at: startAt }));
    expect(created).toMatchObject({ status: 'scheduled', start_at: startAt, started_at: null });
    expect(created.counts.pending).toBe(1);
    const pause = await api.send('POST', `/v1/campaigns/${created.id}/pause`);
    expect(pause.status).toBe(409);
    expect(pause.body.detail).toBe('Cannot pause a campaign that is scheduled (status: scheduled)');
    expect(await api.calls(created.id)).toHaveLength(0);

    const done = await api.waitFor(created.id, (c) => c.status === 'completed');
    expect(Date.parse(done.started_at!)).toBeGreaterThanOrEqual(Date.parse(startAt));
    const [call] = await api.calls(created.id);
    expect(Date.parse(call!.started_at!)).toBeGreaterThanOrEqual(Date.parse(startAt));

    const later = await api.create(
      settings({
        contacts: contactsOf(['+14155558001', '+14155558002']),
        start_at: new Date(Date.now() + 3_600_000).toISOString(),
      }),
    );
    const cancelled = await api.send('POST', `/v1/campaigns/${later.id}/cancel`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.data).toMatchObject({ status: 'cancelled', started_at: null });
    expect(cancelled.body.data.counts).toMatchObject({ total: 2, cancelled: 2, pending: 0 });

    const past = await api.send('POST', '/v1/campaigns', {
      ...settings({ contacts: contactsOf(['+14155558003']) }),
      start_at: new Date(Date.now() - 1000).toISOString(),
    });
    expect(past.status).toBe(422);
    expect(past.body.detail).toEqual([
      { loc: ['body', 'start_at'], msg: 'must be in the future', type: expect.any(String) },
    ]);
  });
});
