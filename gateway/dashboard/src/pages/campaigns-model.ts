/** What the campaign pages read of a campaign, and the figures they derive from it. */

export interface Counts {
  total: number;
  pending: number;
  inProgress: number;
  completed: number;
  noAnswer: number;
  failed: number;
  voicemail: number;
  busy: number;
  skipped: number;
  cancelled: number;
}

export interface CallingWindow {
  days: string[];
  start: string;
  end: string;
  timezone: string;
  fallbackTimezone: string;
}

export interface Campaign {
  id: string;
  name: string;
  agentId: string;
  agent: { name: string } | null;
  phoneNumber: string;
  phoneColumn: string;
  maxConcurrentCalls: number;
  callingWindow: CallingWindow | null;
  status: string;
  counts: Counts;
  startAt: string | null;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  failureReason: string | null;
}

export const COUNT_FIELDS =
  'counts { total pending inProgress completed noAnswer failed voicemail busy skipped cancelled }';
export const CAMPAIGN_FIELDS = `id name agentId agent { name } phoneNumber phoneColumn maxConcurrentCalls
  callingWindow { days start end timezone fallbackTimezone } status ${COUNT_FIELDS}
  startAt createdAt startedAt finishedAt failureReason`;

/** The parts of the bar, in the order drawn, with the words the numbers are shown with. */
export const PARTS = [
  ['completed', 'Completed'],
  ['noAnswer', 'No answer'],
  ['voicemail', 'Voicemail'],
  ['busy', 'Busy'],
  ['failed', 'Failed'],
  ['skipped', 'Skipped'],
  ['cancelled', 'Cancelled'],
  ['inProgress', 'In flight'],
  ['pending', 'Waiting'],
] as const satisfies readonly (readonly [keyof Counts, string])[];

export const WEEKDAYS = ['MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT', 'SUN'] as const;

/** Contacts with a final state: every one but those waiting and those on a call. */
export function doneOf(counts: Counts): number {
  return counts.total - counts.pending - counts.inProgress;
}

export const FINAL_CAMPAIGN = new Set(['COMPLETED', 'CANCELLED']);

/**
 * Seconds left, from the campaign's own pace: the contacts finished by a call so far over the time
 * since it started, applied to those left (waiting or on a call). The API gives an ETA only for a
 * dry run, so a running campaign's is derived here; time spent paused slows the pace it sees.
 * Undefined when it cannot be judged (not running, or no call finished yet).
 */
export function etaSeconds(campaign: Campaign, now: number): number | undefined {
  const { counts } = campaign;
  if (campaign.status !== 'RUNNING' || !campaign.startedAt) return undefined;
  const called = counts.completed + counts.noAnswer + counts.failed + counts.voicemail + counts.busy;
  const elapsed = (now - Date.parse(campaign.startedAt)) / 1000;
  if (called === 0 || elapsed <= 0) return undefined;
  return Math.round(((counts.pending + counts.inProgress) * elapsed) / called);
}

/** "1 h 5 min", "3 min 20 s", "12 s". */
export function duration(total: number): string {
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = Math.floor(total % 60);
  if (h > 0) return `${h} h ${m} min`;
  if (m > 0) return `${m} min ${s} s`;
  return `${s} s`;
}
