import { simulatedTelephonyInfo, type TelephonyProviderInfo } from '@voice/shared';
import { type CallPlan, cutShort, MAX_CALL_SECONDS, type PlannedEvent, planCall, wallTime } from './plan';
import type { CallSession, CarrierEvent, CarrierStage, DialRequest, TelephonyProvider } from './types';
import { synthesizeRecording } from './wav';

/** How a session retries an event the call service could not store: doubling delays up to a cap. */
export interface DeliveryRetry {
  attempts: number;
  baseDelayMs: number;
  /** The longest wait between two attempts; unbounded doubling when omitted. */
  maxDelayMs?: number;
}

/**
 * About 30 s of retries: the call service cannot store events while its database restarts (a
 * supervised embedded PostgreSQL is back within seconds), and an event given up leaves the call to
 * the reaper, which fails it.
 */
export const DELIVERY_RETRY: DeliveryRetry = { attempts: 20, baseDelayMs: 100, maxDelayMs: 2_000 };

export interface SimulatedCarrierOptions {
  /** SIM_TIME_SCALE: wall delay = simulated delay × timeScale (1 = real time). */
  timeScale: number;
  /** Wall clock in ms; injectable so tests can pretend time has passed. */
  now?: () => number;
  /** Delivery retries when onEvent throws (wall ms, not scaled: they wait for the consumer). */
  retry?: DeliveryRetry;
}

type Deliver = (event: CarrierEvent) => Promise<void>;

/** Events after `stage`: what the call service has not stored yet. */
const REMAINING: Record<CarrierStage, ReadonlySet<PlannedEvent['type']>> = {
  initializing: new Set(['ringing', 'answered', 'ended']),
  ringing: new Set(['answered', 'ended']),
  in_progress: new Set(['ended']),
};

/**
 * The default telephony provider (README, "Calls are simulated for now"): plans the call up front
 * (deterministic per call id) and plays the plan back on timers scaled by SIM_TIME_SCALE. Every
 * event carries the wall-clock time it fell due at, so nothing it reports lies in the future.
 */
export class SimulatedCarrier implements TelephonyProvider {
  readonly maxCallSeconds = MAX_CALL_SECONDS;
  readonly info: TelephonyProviderInfo;
  private readonly timeScale: number;
  private readonly now: () => number;
  private readonly retry: DeliveryRetry;
  private readonly sessions = new Set<Session>();

  constructor(options: SimulatedCarrierOptions) {
    if (!Number.isFinite(options.timeScale) || options.timeScale <= 0) {
      throw new RangeError(`timeScale must be a positive number, got ${options.timeScale}`);
    }
    this.timeScale = options.timeScale;
    this.info = simulatedTelephonyInfo(options.timeScale);
    this.now = options.now ?? Date.now;
    this.retry = options.retry ?? DELIVERY_RETRY;
  }

  dial(request: DialRequest, onEvent: Deliver): CallSession {
    return this.resume(request, 'initializing', onEvent);
  }

  resume(request: DialRequest, stage: CarrierStage, onEvent: Deliver): CallSession {
    const session = new Session(request, stage, onEvent, this.timeScale, this.now, this.retry);
    this.sessions.add(session);
    void session.done.then(() => this.sessions.delete(session));
    return session;
  }

  recording(request: { callId: string; durationSeconds: number; offset?: number }) {
    const seconds = Math.min(this.maxCallSeconds, request.durationSeconds);
    return {
      contentType: 'audio/wav' as const,
      ...synthesizeRecording(request.callId, seconds, request.offset ?? 0),
    };
  }

  /**
   * Stops every call in flight without delivering anything more (their `done` resolves). For a
   * service shutting down: on its next start it resumes those calls from their stored stage.
   */
  close(): void {
    for (const session of this.sessions) session.abandon();
    this.sessions.clear();
  }
}

/**
 * One call being played back. Events go out one at a time, in plan order, each awaited. A hang-up
 * waits for a delivery in progress, then sends the cut-short 'ended' instead of the rest.
 *
 * When onEvent keeps failing (the call service cannot store the event), the event is retried with
 * exponential backoff (DELIVERY_RETRY) and then the session gives up without sending anything more: later events
 * would reach a service that missed an earlier one, and the call service's reaper ends such a call
 * (failed, timeout). Nothing is logged here, the carrier has no logger; the reaper's end is the trace.
 */
class Session implements CallSession {
  readonly done: Promise<void>;
  private hangUpAtWall: number | null = null;
  private abandoned = false;
  /** Simulated offset of the last event the call service has (a hang-up cannot precede it). */
  private lastAtMs: number;
  private answeredDelivered: boolean;
  private readonly plan: CallPlan;
  private wake: (() => void) | null = null;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly request: DialRequest,
    stage: CarrierStage,
    private readonly onEvent: Deliver,
    private readonly timeScale: number,
    private readonly now: () => number,
    private readonly retry: DeliveryRetry,
  ) {
    // Planned here, synchronously, so that a request the planner cannot handle throws from dial()
    // into the caller's hands instead of rejecting a `done` nobody may be watching.
    this.plan = planCall(request, timeScale);
    this.answeredDelivered = stage === 'in_progress';
    const delivered = this.plan.events.filter((e) => !REMAINING[stage].has(e.type));
    this.lastAtMs = delivered.at(-1)?.atMs ?? 0;
    this.done = this.run(stage);
  }

  hangUp(): Promise<void> {
    if (this.hangUpAtWall === null) this.hangUpAtWall = this.now();
    this.interrupt();
    return this.done;
  }

  abandon(): void {
    this.abandoned = true;
    this.interrupt();
  }

  private interrupt(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.wake?.();
  }

  private async run(stage: CarrierStage): Promise<void> {
    const { plan } = this;
    const { startedAt } = this.request;
    // Without an 'answered' event (voicemail) the call service never sees the pick-up: go by time.
    const signalsAnswer = plan.events.some((e) => e.type === 'answered');
    for (const planned of plan.events.filter((e) => REMAINING[stage].has(e.type))) {
      const at = wallTime(plan, planned.atMs);
      await this.sleepUntil(at.getTime());
      if (this.abandoned) return;
      if (this.hangUpAtWall !== null) {
        // Simulated moment of the hang-up (rounded down: its wall time is not after the hang-up);
        // a call whose natural end was already due ends naturally.
        const atMs = Math.max(
          this.lastAtMs,
          Math.floor((this.hangUpAtWall - startedAt.getTime()) / this.timeScale),
        );
        if (atMs < plan.endedAtMs) {
          const result = cutShort(plan, atMs, this.answeredDelivered || !signalsAnswer);
          await this.deliver({ type: 'ended', at: result.ended_at, result });
          return;
        }
      }
      const event: CarrierEvent =
        planned.type === 'ended'
          ? { type: 'ended', at, result: plan.result }
          : planned.type === 'answered'
            ? { type: 'answered', at, sip: plan.result.sip }
            : { type: 'ringing', at };
      if (!(await this.deliver(event))) return;
      this.lastAtMs = planned.atMs;
      if (planned.type === 'answered') this.answeredDelivered = true;
    }
  }

  /**
   * Resolves once the clock reads `wallMs` (timers may fire a millisecond early: it sleeps again
   * then, so an event is never stamped ahead of the clock), or at once on a hang-up / abandon.
   */
  private async sleepUntil(wallMs: number): Promise<void> {
    while (this.now() < wallMs && this.hangUpAtWall === null && !this.abandoned) {
      await this.sleepFor(wallMs - this.now());
    }
  }

  private sleepFor(delay: number): Promise<void> {
    return new Promise((resolve) => {
      this.wake = () => {
        this.wake = null;
        resolve();
      };
      // Unref'd: a pending simulated call must not keep a stopping process alive (it is resumed).
      this.timer = setTimeout(() => this.wake?.(), delay);
      this.timer.unref();
    });
  }

  /** true once onEvent accepted the event; false after the last retry (or when abandoned). */
  private async deliver(event: CarrierEvent): Promise<boolean> {
    for (let attempt = 1; ; attempt++) {
      if (this.abandoned) return false;
      try {
        await this.onEvent(event);
        return true;
      } catch {
        if (attempt >= this.retry.attempts) return false;
        await new Promise((resolve) =>
          setTimeout(
            resolve,
            Math.min(
              this.retry.baseDelayMs * 2 ** (attempt - 1),
              this.retry.maxDelayMs ?? Number.POSITIVE_INFINITY,
            ),
          ).unref(),
        );
      }
    }
  }
}
