import {
  AGENT,
  type AgentCallStats,
  AppError,
  type Bus,
  CALL,
  type CallContext,
  type CampaignSettings,
  type CampaignValidation,
  callRpc,
  DEFAULT_CALL_SECONDS,
  DO_NOT_CALL,
  DO_NOT_CALL_CHUNK,
  requireAccount,
  VALIDATION_SOURCE_PREFIX,
  type ValidationEta,
  type ValidationZone,
  validationSource,
} from '@voice/shared';
import { numberZones } from '../domain/number-zones';
import { findings, screenContacts } from '../domain/validation';
import { etaSeconds } from '../domain/validation-eta';
import { numberZoneTable } from './number-zone-table';

/** Do-not-call checks in flight at once: a 100,000-number list is 10 of them. */
const CHECK_CONCURRENCY = 4;
/** Waiting for the gateway's contacts (a 16 MiB list comes in parts). */
const FETCH_TIMEOUT_MS = 30_000;

export interface ValidationOptions {
  bus: Bus;
}

/**
 * A dry run of a create: the same agent check (another account's agent is 404), create's
 * classification and duplicate check, the do-not-call list asked in chunks (never per contact),
 * the contacts' zones, and the ETA. Stores nothing.
 */
export class CampaignValidator {
  constructor(private readonly options: ValidationOptions) {}

  async validate(
    ctx: CallContext,
    request: { settings: CampaignSettings; source: string; total: number },
  ): Promise<CampaignValidation> {
    requireAccount(ctx);
    const { bus } = this.options;
    const { settings } = request;
    const [, stats, load, contacts] = await Promise.all([
      callRpc(bus, AGENT.get, { agent_id: settings.agent_id }, ctx),
      callRpc(bus, CALL.agentCallStats, { agent_id: settings.agent_id }, ctx),
      callRpc(bus, CALL.accountLoad, {}, ctx),
      this.fetchContacts(ctx, request.source),
    ]);
    if (contacts.length !== request.total) {
      throw new AppError('BAD_REQUEST', `Expected ${request.total} contacts, received ${contacts.length}`);
    }
    const table = numberZoneTable();
    const window = settings.calling_window;
    const screened = screenContacts(contacts, settings.phone_column, window, (n) => numberZones(table, n));
    const listed = await this.listed(
      ctx,
      screened.candidates.map((c) => c.number),
    );
    const found = findings(screened, listed);
    return {
      counts: found.counts,
      problems: found.problems,
      time_zones: found.zones,
      eta: this.estimate(settings, found.zones, stats, load.max_concurrent_calls),
    };
  }

  /** The ETA and what it assumed (see validation-eta.ts for the model). */
  private estimate(
    settings: CampaignSettings,
    zones: readonly ValidationZone[],
    stats: AgentCallStats,
    accountCap: number,
  ): ValidationEta {
    const starts = settings.start_at ? new Date(settings.start_at) : new Date();
    const history = stats.mean_seconds !== null && stats.calls > 0;
    // At least a second, to a tenth: the figure reported is the one the estimate used.
    const avg = Math.round(Math.max(history ? (stats.mean_seconds ?? 0) : DEFAULT_CALL_SECONDS, 1) * 10) / 10;
    const window = settings.calling_window;
    // The account's limit bounds every campaign of it (its other calls are not counted).
    const cap = Math.max(1, Math.min(settings.max_concurrent_calls, accountCap));
    const eta = etaSeconds({
      groups: zones.map((zone) => ({ zones: zone.zones, contacts: zone.contacts })),
      window,
      cap,
      avgCallSeconds: avg,
      start: starts,
    });
    return {
      eta_seconds: eta,
      estimated_completion_at: eta === null ? null : new Date(starts.getTime() + eta * 1000).toISOString(),
      starts_at: starts.toISOString(),
      max_concurrent_calls: cap,
      account_max_concurrent_calls: accountCap,
      avg_call_seconds: avg,
      avg_call_source: history ? 'agent_history' : 'default',
      agent_calls_sampled: stats.calls,
      retries_counted: false,
      calling_window: window !== undefined,
    };
  }

  /** The contacts, from the subject the gateway answers them on (the bus joins a large reply's parts). */
  private async fetchContacts(ctx: CallContext, source: string) {
    if (!source.startsWith(`${VALIDATION_SOURCE_PREFIX}.`)) throw new Error('not a validation source');
    const reply = await callRpc(this.options.bus, validationSource(source), {}, ctx, {
      timeoutMs: FETCH_TIMEOUT_MS,
    });
    return reply.contacts;
  }

  /** Which of the numbers are listed: DO_NOT_CALL_CHUNK a request, CHECK_CONCURRENCY at once. */
  private async listed(ctx: CallContext, numbers: readonly string[]): Promise<Set<string>> {
    const listed = new Set<string>();
    const chunks: string[][] = [];
    for (let i = 0; i < numbers.length; i += DO_NOT_CALL_CHUNK)
      chunks.push(numbers.slice(i, i + DO_NOT_CALL_CHUNK));
    let next = 0;
    const work = async () => {
      while (next < chunks.length) {
        const chunk = chunks[next++]!;
        const reply = await callRpc(this.options.bus, DO_NOT_CALL.checkMany, { numbers: chunk }, ctx);
        for (const number of reply.listed) listed.add(number);
      }
    };
    await Promise.all(Array.from({ length: Math.min(CHECK_CONCURRENCY, chunks.length) }, work));
    return listed;
  }
}
