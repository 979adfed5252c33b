import { randomUUID } from 'node:crypto';
import postgres from 'postgres';
import type { Seeded } from './seed';
import { api, median, sleep, waitQuiet } from './support';
import type { Platform } from './topology';

/**
 * `pnpm bench campaign-size`: does a campaign dial as fast, and does a call's end cost the
 * database as much, with 100,000 contacts as with 1,000? One campaign of each size per round at
 * the same cap, contacts all distinct and answering, calls of about zero length. The rate is
 * measured over the same window in both, the WINDOW's calls ended; the cost of a call's end is
 * the campaign service's own histograms over that window: the time a CALL_ENDED holds the
 * campaign's row lock (the contact, the counts and the progress event, to the commit) and its
 * whole transaction. The large campaign is cancelled once its window is measured.
 */

export const SIZES = { small: 1_000, large: 100_000 } as const;
const CAP = 50;
/** Calls ended at which the measured window opens and closes (past the start, short of the small one's tail). */
const WINDOW = { from: 100, to: 900 } as const;
const ROUNDS = 3;

export interface CampaignSizeRun {
  contacts: number;
  cap: number;
  /** The POST /v1/campaigns, until its answer. */
  postS: number;
  /** From the POST until the campaign was running (preparation included). */
  runningS: number;
  /** Calls ended per second within the window. */
  callsPerS: number;
  /** Mean CALL_ENDED transaction of the window (connection wait and lock wait included), and how many. */
  callEndedMs: number;
  callEnded: number;
  /** Mean time a CALL_ENDED held the campaign's row lock, and the share of them over 10 ms. */
  lockedMs: number;
  lockedOver10ms: number;
}

export type CampaignSizeSection = Record<
  string,
  { runs: { small: CampaignSizeRun; large: CampaignSizeRun }[] }
>;

/** Distinct numbers the simulated carrier answers (none ends in 0001..0004). */
export function contactList(count: number): { phone: string; name: string }[] {
  const contacts: { phone: string; name: string }[] = [];
  for (let n = 3_000_000; contacts.length < count; n++) {
    if (['0001', '0002', '0003', '0004'].includes(String(n).slice(-4))) continue;
    contacts.push({ phone: `+1415${n}`, name: `Contact ${contacts.length}` });
  }
  return contacts;
}

interface Histogram {
  sum: number;
  count: number;
  /** Observations at most 10 ms. */
  within10ms: number;
}

/** A histogram of the campaign service's, summed over the exposition's series that include `labels`. */
function histogram(text: string, name: string, labels = ''): Histogram {
  const read = (suffix: string, extra = '') =>
    text
      .split('\n')
      .filter((line) => line.startsWith(`${name}${suffix}{`) && line.includes(labels) && line.includes(extra))
      .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
  return { sum: read('_sum'), count: read('_count'), within10ms: read('_bucket', 'le="0.01"') };
}

/** The CALL_ENDED transactions that moved a contact, and the lock each held, as the service counted them. */
async function callEndedHistograms(metricsUrl: string): Promise<{ total: Histogram; locked: Histogram }> {
  const text = await (await fetch(metricsUrl)).text();
  return {
    total: histogram(text, 'campaign_call_ended_seconds', 'result="recorded"'),
    locked: histogram(text, 'campaign_call_ended_locked_seconds'),
  };
}

/** Mean ms and the share over 10 ms between two readings of a histogram. */
function between(before: Histogram, after: Histogram): { meanMs: number; over10ms: number; n: number } {
  const n = after.count - before.count;
  return {
    meanMs: ((after.sum - before.sum) / n) * 1000,
    over10ms: 1 - (after.within10ms - before.within10ms) / n,
    n,
  };
}

type Counts = Record<string, number>;
const ended = (c: Counts) => c.completed! + c.no_answer! + c.failed! + c.voicemail! + c.busy!;

async function oneCampaign(
  platform: Platform,
  seeded: Seeded,
  metricsUrl: string,
  count: number,
): Promise<CampaignSizeRun> {
  const key = seeded.campaign.key;
  const contacts = contactList(count);
  const posted = performance.now();
  const created = await api<{ data: { id: string } }>(platform.url, 'POST', '/v1/campaigns', {
    key,
    body: {
      name: `Bench size ${count} ${randomUUID().slice(0, 8)}`,
      agent_id: seeded.campaign.agentId,
      phone_number: '+14155550100',
      max_concurrent_calls: CAP,
      contacts,
    },
  });
  const postS = (performance.now() - posted) / 1000;
  let runningS = Number.NaN;
  let start: { at: number; ended: number; histograms: { total: Histogram; locked: Histogram } } | undefined;
  const deadline = Date.now() + 10 * 60_000;
  for (;;) {
    const { data } = await api<{ data: { status: string; counts: Counts } }>(
      platform.url,
      'GET',
      `/v1/campaigns/${created.data.id}`,
      { key },
    );
    const at = performance.now();
    if (Number.isNaN(runningS) && data.status !== 'preparing') runningS = (at - posted) / 1000;
    const done = ended(data.counts);
    if (!start && done >= WINDOW.from) {
      start = { at, ended: done, histograms: await callEndedHistograms(metricsUrl) };
    } else if (start && done >= WINDOW.to) {
      const histograms = await callEndedHistograms(metricsUrl);
      if (data.status !== 'completed') {
        await api(platform.url, 'POST', `/v1/campaigns/${created.data.id}/cancel`, { key });
      }
      const total = between(start.histograms.total, histograms.total);
      const locked = between(start.histograms.locked, histograms.locked);
      return {
        contacts: count,
        cap: CAP,
        postS,
        runningS,
        callsPerS: (done - start.ended) / ((at - start.at) / 1000),
        callEndedMs: total.meanMs,
        callEnded: total.n,
        lockedMs: locked.meanMs,
        lockedOver10ms: locked.over10ms,
      };
    }
    if (Date.now() > deadline) throw new Error(`campaign of ${count} never ended ${WINDOW.to} calls`);
    await sleep(100);
  }
}

/**
 * ROUNDS rounds on one platform, the order of the two sizes alternating. Between campaigns the
 * platform settles: its processes quiet, the last campaign's dead rows vacuumed.
 */
export async function campaignSizeRun(
  platform: Platform,
  seeded: Seeded,
  metricsUrl: string,
  log: (line: string) => void,
): Promise<CampaignSizeSection[string]> {
  const runs: CampaignSizeSection[string]['runs'] = [];
  const settle = async () => {
    await waitQuiet(
      platform.processes.map((p) => p.pid),
      60_000,
    );
    const sql = postgres(platform.databaseUrl, { max: 1, onnotice: () => {} });
    try {
      await sql`VACUUM (ANALYZE) campaign.contacts, campaign.campaigns`;
    } finally {
      await sql.end();
    }
  };
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? (['small', 'large'] as const) : (['large', 'small'] as const);
    const result: Partial<{ small: CampaignSizeRun; large: CampaignSizeRun }> = {};
    for (const size of order) {
      await settle();
      const run = await oneCampaign(platform, seeded, metricsUrl, SIZES[size]);
      result[size] = run;
      log(
        `  round ${round + 1} ${platform.name} ${String(run.contacts).padStart(7)} contacts: ${run.callsPerS.toFixed(1)} calls/s, CALL_ENDED ${run.callEndedMs.toFixed(2)} ms (${run.callEnded}), lock held ${run.lockedMs.toFixed(2)} ms, POST ${run.postS.toFixed(1)} s, running after ${run.runningS.toFixed(1)} s`,
      );
    }
    runs.push(result as { small: CampaignSizeRun; large: CampaignSizeRun });
  }
  await settle();
  return { runs };
}

const f1 = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : 'n/a');
const f2 = (n: number) => (Number.isFinite(n) ? n.toFixed(2) : 'n/a');

/** The BENCHMARKS.md section. */
export function campaignSizeLines(section: CampaignSizeSection, labels: Record<string, string>): string[] {
  const out = [
    '## Campaign size',
    '',
    `A campaign of ${SIZES.large.toLocaleString('en-US')} contacts against one of ${SIZES.small.toLocaleString('en-US')} at the same cap (${CAP}), contacts all distinct and answering, calls of about zero length (SIM_TIME_SCALE=0.00001), ${ROUNDS} rounds per platform (the sizes' order alternating). Measured over the same window in both: from the ${WINDOW.from}th call ended to the ${WINDOW.to}th (the GET of the campaign polled every 100 ms); the large campaign is cancelled after its window. Dial rate: calls ended per second in the window (bounded by CALL_DIALS_PER_SECOND, 100 a second per call-service instance). Database time per call end, from the campaign service's own histograms over the window: \`campaign_call_ended_locked_seconds\`, the time a CALL_ENDED holds the campaign's row lock (the contact's update, the counts moved and the progress event, to the commit: what every other change of the campaign waits for), and \`campaign_call_ended_seconds\`, the whole transaction from asking for a connection (its waits for a connection and for the lock included). POST: the whole request with its contacts; running: until preparation was over. Target: dial-rate ratio >= 0.9, database time per call end flat.`,
    '',
    '| platform | round | contacts | calls/s | lock held, mean ms | lock held over 10 ms | CALL_ENDED, mean ms | POST s | running after s |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const [name, { runs }] of Object.entries(section)) {
    runs.forEach((run, i) => {
      for (const r of [run.small, run.large]) {
        out.push(
          `| ${labels[name] ?? name} | ${i + 1} | ${r.contacts} | ${f1(r.callsPerS)} | ${f2(r.lockedMs)} | ${(r.lockedOver10ms * 100).toFixed(1)}% | ${f1(r.callEndedMs)} | ${f1(r.postS)} | ${f1(r.runningS)} |`,
        );
      }
    });
  }
  out.push(
    '',
    '| platform | dial rate large / small, per round | median (target >= 0.9) | lock held large / small, per round | median | CALL_ENDED large / small, median | met |',
    '|---|---|---:|---|---:|---:|---|',
  );
  for (const [name, { runs }] of Object.entries(section)) {
    const rate = runs.map((r) => r.large.callsPerS / r.small.callsPerS);
    const held = runs.map((r) => r.large.lockedMs / r.small.lockedMs);
    const whole = runs.map((r) => r.large.callEndedMs / r.small.callEndedMs);
    out.push(
      `| ${labels[name] ?? name} | ${rate.map(f2).join(', ')} | ${f2(median(rate))} | ${held.map(f2).join(', ')} | ${f2(median(held))} | ${f2(median(whole))} | ${median(rate) >= 0.9 ? 'yes' : '**no**'} |`,
    );
  }
  out.push('');
  return out;
}
