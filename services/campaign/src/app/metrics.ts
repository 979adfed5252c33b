import { BUS_LATENCY_BUCKETS, type Logger, type Metrics, type Sql, withDeadline } from '@voice/shared';

/** A scrape waits at most this long for the database; then the gauges read NaN (unknown). */
export const GAUGE_QUERY_DEADLINE_MS = 1000;

export type PlacementResult = 'placed' | 'refused' | 'unconfirmed';

/** What a CALL_ENDED's transaction did: moved a contact, or nothing (a redelivery, no contact in flight). */
export type CallEndedResult = 'recorded' | 'unchanged';

export interface CampaignMetrics {
  /** One placement of a campaign call: confirmed, refused for good, or left to be re-sent. */
  placed(result: PlacementResult): void;
  /**
   * One CALL_ENDED's transaction, committed: how long it took from asking for a connection, and
   * how long it held the campaign's row lock (undefined when it took none: nothing matched).
   */
  callEnded(result: CallEndedResult, times: { seconds: number; lockedSeconds: number | undefined }): void;
}

/**
 * The campaign service's metrics. `campaign_active_calls` and `campaigns_running` are the
 * platform's (every replica reads the same rows, so aggregate with max, not sum), read from the
 * database at scrape time with two counts over partial indexes, bounded by a deadline; concurrent
 * scrapes share one query. Placements are per instance.
 */
export function campaignMetrics(metrics: Metrics, sql: Sql, log: Logger): CampaignMetrics {
  let reading: Promise<{ calls: number; running: number } | undefined> | undefined;
  const read = () => {
    reading ??= withDeadline(
      sql<{ calls: number; running: number }[]>`
        SELECT (SELECT count(*)::int FROM campaign.contacts WHERE state = 'in_progress') AS calls,
               (SELECT count(*)::int FROM campaign.campaigns WHERE status = 'running') AS running`,
      GAUGE_QUERY_DEADLINE_MS,
      'campaign metrics query',
    )
      .then(
        ([row]) => row,
        (error: unknown) => {
          log.warn({ err: error }, 'campaign metrics: the database did not answer; gauges read NaN');
          return undefined;
        },
      )
      .finally(() => {
        reading = undefined;
      });
    return reading;
  };
  metrics.gauge(
    'campaign_active_calls',
    'Campaign calls in progress (claimed and not final) across the platform, read from the database at scrape',
    [],
    async (g) => g.set((await read())?.calls ?? Number.NaN),
  );
  metrics.gauge(
    'campaigns_running',
    'Campaigns running across the platform, read from the database at scrape',
    [],
    async (g) => g.set((await read())?.running ?? Number.NaN),
  );
  const placements = metrics.counter(
    'campaign_placements_total',
    'Campaign call placements this instance sent, by result: placed (confirmed), refused (the ' +
      'attempt failed for good), unconfirmed (re-sent after the lease with the same call id)',
    ['result'],
  );
  const callEnded = metrics.histogram(
    'campaign_call_ended_seconds',
    'CALL_ENDED of campaign calls this instance recorded: the transaction that moves the contact ' +
      'and the campaign counts, from asking for a connection to its commit, by result (recorded, ' +
      'unchanged = a redelivery or no contact in flight). Flat in campaign size by design',
    ['result'],
    BUS_LATENCY_BUCKETS,
  );
  const locked = metrics.histogram(
    'campaign_call_ended_locked_seconds',
    'CALL_ENDED of campaign calls this instance recorded: from the campaign row lock being granted ' +
      'to the commit (the contact, the counts and the progress event), the time every other change ' +
      'of the campaign waits for. Flat in campaign size by design',
    [],
    BUS_LATENCY_BUCKETS,
  );
  return {
    placed: (result) => placements.inc({ result }),
    callEnded: (result, { seconds, lockedSeconds }) => {
      callEnded.observe({ result }, seconds);
      if (lockedSeconds !== undefined) locked.observe(lockedSeconds);
    },
  };
}
