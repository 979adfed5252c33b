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
 * the campaign service's own `campaign_call_ended_seconds` (the CALL_ENDED transaction: the
 * contact, the campaign's counts and its progress event) over that window. The large campaign is
 * cancelled once its window is measured.
 */

export const SIZES = { small: 1_000, large: 100_000 } as const;
const CAP = 50;
/** Calls ended at which the measured window opens and closes (past the start, short of the small one's tail). */
const WINDOW = { from: 100, to: 900 } as const;
const ROUNDS = 2;

export interface CampaignSizeRun {
  contacts: number;
  cap: number;
  /** The POST /v1/campaigns, until its answer. */
  postS: number;
  /** From the POST until the campaign was running (preparation included). */
  runningS: number;
  /** Calls ended per second within the window. */
  callsPerS: number;
  /** Mean CALL_ENDED transaction of the window, and how many it averaged. */
  callEndedMs: number;
  callEnded: number;
  /** The window's CALL_ENDED transactions: the share over 10 ms, from the histogram's buckets. */
  callEndedOver10ms: number;
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

/** The `result="recorded"` series of campaign_call_ended_seconds, summed over the exposition's lines. */
async function callEndedHistogram(metricsUrl: string): Promise<Histogram> {
  const text = await (await fetch(metricsUrl)).text();
  const read = (pattern: RegExp) =>
    text
      .split('\n')
      .filter((line) => pattern.test(line) && line.includes('result="recorded"'))
      .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
  return {
    sum: read(/^campaign_call_ended_seconds_sum\{/),
    count: read(/^campaign_call_ended_seconds_count\{/),
    within10ms: read(/^campaign_call_ended_seconds_bucket\{.*le="0\.01"/),
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
  let start: { at: number; ended: number; histogram: Histogram } | undefined;
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
      start = { at, ended: done, histogram: await callEndedHistogram(metricsUrl) };
    } else if (start && done >= WINDOW.to) {
      const histogram = await callEndedHistogram(metricsUrl);
      if (data.status !== 'completed') {
        await api(platform.url, 'POST', `/v1/campaigns/${created.data.id}/cancel`, { key });
      }
      const calls = histogram.count - start.histogram.count;
      return {
        contacts: count,
        cap: CAP,
        postS,
        runningS,
        callsPerS: (done - start.ended) / ((at - start.at) / 1000),
        callEndedMs: ((histogram.sum - start.histogram.sum) / calls) * 1000,
        callEnded: calls,
        callEndedOver10ms: 1 - (histogram.within10ms - start.histogram.within10ms) / calls,
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
        `  round ${round + 1} ${platform.name} ${String(run.contacts).padStart(7)} contacts: ${run.callsPerS.toFixed(1)} calls/s, CALL_ENDED ${run.callEndedMs.toFixed(2)} ms (${run.callEnded}), POST ${run.postS.toFixed(1)} s, running after ${run.runningS.toFixed(1)} s`,
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
    `A campaign of ${SIZES.large.toLocaleString('en-US')} contacts against one of ${SIZES.small.toLocaleString('en-US')} at the same cap (${CAP}), contacts all distinct and answering, calls of about zero length (SIM_TIME_SCALE=0.00001), ${ROUNDS} rounds per platform (the sizes' order alternating). Measured over the same window in both: from the ${WINDOW.from}th call ended to the ${WINDOW.to}th (the GET of the campaign polled every 100 ms); the large campaign is cancelled after its window. Dial rate: calls ended per second in the window (bounded by CALL_DIALS_PER_SECOND, 100 a second per call-service instance). Database time per call end: the campaign service's \`campaign_call_ended_seconds\` (recorded), the CALL_ENDED transaction that moves the contact, the campaign's counts and its progress event, from asking for a connection to its commit, as its mean over the window and the share over 10 ms. POST: the whole request with its contacts; running: until preparation was over. Target: dial-rate ratio >= 0.9, database time per call end flat.`,
    '',
    '| platform | round | contacts | calls/s | CALL_ENDED mean ms | over 10 ms | POST s | running after s |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const [name, { runs }] of Object.entries(section)) {
    runs.forEach((run, i) => {
      for (const r of [run.small, run.large]) {
        out.push(
          `| ${labels[name] ?? name} | ${i + 1} | ${r.contacts} | ${f1(r.callsPerS)} | ${f2(r.callEndedMs)} | ${(r.callEndedOver10ms * 100).toFixed(1)}% | ${f1(r.postS)} | ${f1(r.runningS)} |`,
        );
      }
    });
  }
  out.push(
    '',
    '| platform | dial rate large / small, per round | median (target >= 0.9) | CALL_ENDED ms large / small, per round | median | met |',
    '|---|---|---:|---|---:|---|',
  );
  for (const [name, { runs }] of Object.entries(section)) {
    const rate = runs.map((r) => r.large.callsPerS / r.small.callsPerS);
    const cost = runs.map((r) => r.large.callEndedMs / r.small.callEndedMs);
    out.push(
      `| ${labels[name] ?? name} | ${rate.map(f2).join(', ')} | ${f2(median(rate))} | ${cost.map(f2).join(', ')} | ${f2(median(cost))} | ${median(rate) >= 0.9 ? 'yes' : '**no**'} |`,
    );
  }
  out.push('');
  return out;
}
