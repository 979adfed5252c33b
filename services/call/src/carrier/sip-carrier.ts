import { randomUUID } from 'node:crypto';
import {
  AppError,
  type Bus,
  type CallContext,
  callRpc,
  type ErrorCode,
  EVENTS,
  EventEnvelope,
  eventAccount,
  eventFilter,
  type Logger,
  SipCallProgress,
  type SipDialRequest,
  STREAMS,
  type Subscription,
  TELEPHONY,
  type TelephonyProviderInfo,
} from '@voice/shared';
import { sipDialBody } from './sip-dial';
import { sipCallResult, sipCarrierEvent, undialedEnd } from './sip-result';
import type { CallSession, CarrierEvent, CarrierStage, DialRequest, TelephonyProvider } from './types';

export interface SipCarrierOptions {
  bus: Bus;
  log: Logger;
  /**
   * SIP_MAX_CALL_SECONDS: the reaper's bound for a SIP call (wall seconds from dialing); the
   * conversation engine is given what is left of it after the longest wait for an answer.
   */
  maxCallSeconds: number;
  /** The prompt a call was placed with, by its hash; null when none was kept (a call placed before). */
  prompt: (hash: string) => Promise<string | null>;
  /**
   * Waits between dial attempts while the telephony service cannot be reached (no responder, no
   * answer in time); once they are used up the call fails as carrier_error. Re-sending is safe: the
   * telephony service dials a call id at most once.
   */
  dialRetryMs?: readonly number[];
}

/** About 30 s of trying: a telephony instance restarting, not one that is gone. */
const DIAL_RETRY_MS = [250, 500, 1000, 2000, 4000, 8000, 8000, 8000] as const;

/** Failures that may pass: the telephony service is down, restarting or overloaded. */
const TRANSIENT: ReadonlySet<ErrorCode> = new Set([
  'SERVICE_UNAVAILABLE',
  'SERVICE_TIMEOUT',
  'SHUTTING_DOWN',
]);

/** Progress lives here while the call service applies it: shorter than JetStream's default. */
const ACK_WAIT_MS = 10_000;

/** Replicas of the call service share this durable consumer of SIP progress. */
export const SIP_PROGRESS_DURABLE = 'call-sip-progress';

/** Applies a carrier event to a call, on whichever call service instance the event reached. */
export type ApplyEvent = (callId: string, event: CarrierEvent) => Promise<void>;

interface Session extends CallSession {
  settle(): void;
  settled: boolean;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function contextOf(request: DialRequest): CallContext {
  return { requestId: randomUUID(), accountId: request.accountId };
}

/**
 * Calls over SIP trunks, carried by the telephony service: dialing and hanging up are requests
 * on the bus, and the call's progress comes back as durable events (EVENTS.sipCallProgress) that
 * any call service instance may receive. So progress is not tied to the session that dialed: the
 * consumer applies each event to the call wherever it arrives (the state machine under the
 * call's row lock makes a repeat or a late step change nothing), and a session here only tracks
 * that this instance placed the call, so it can hang it up and hand it back on a stop.
 */
export class SipCarrier implements TelephonyProvider {
  readonly info: TelephonyProviderInfo = {
    provider: 'sip',
    time_scale: null,
    test_numbers: null,
    other_numbers: null,
  };
  readonly maxCallSeconds: number;
  private readonly sessions = new Map<string, Session>();
  private readonly retryMs: readonly number[];

  constructor(private readonly options: SipCarrierOptions) {
    this.maxCallSeconds = options.maxCallSeconds;
    this.retryMs = options.dialRetryMs ?? DIAL_RETRY_MS;
  }

  dial(request: DialRequest, onEvent: (event: CarrierEvent) => Promise<void>): CallSession {
    return this.start(request, onEvent, true);
  }

  /**
   * After a restart nothing is replayed from here: the durable consumer goes on with the progress
   * the telephony service published meanwhile. A call that reported nothing yet is dialed again,
   * since the first request may never have arrived (a second one for the same id changes nothing).
   */
  resume(
    request: DialRequest,
    stage: CarrierStage,
    onEvent: (event: CarrierEvent) => Promise<void>,
  ): CallSession {
    return this.start(request, onEvent, stage === 'initializing');
  }

  recording(): never {
    // The telephony instance that carried the call wrote its recording to the recording store.
    throw new AppError('NOT_FOUND', 'The recording of a SIP call is kept in the recording store');
  }

  /** Hangs up a call from any instance (the telephony service knows it by id). */
  async hangUp(accountId: string | undefined, callId: string): Promise<void> {
    await callRpc(
      this.options.bus,
      TELEPHONY.hangup,
      { call_id: callId },
      { requestId: randomUUID(), accountId },
    );
  }

  /** The durable consumer of SIP progress; every event goes to `apply`. */
  consume(apply: ApplyEvent): Promise<Subscription> {
    const { bus, log } = this.options;
    const Envelope = EventEnvelope(SipCallProgress);
    return bus.consume({
      stream: STREAMS.sipCallEvents,
      durable: SIP_PROGRESS_DURABLE,
      subjects: [eventFilter(EVENTS.sipCallProgress)],
      ackWaitMs: ACK_WAIT_MS,
      retryDelayMs: (count) => Math.min(10_000, 250 * 2 ** (count - 1)),
      handler: async (msg) => {
        const parsed = Envelope.safeParse(msg.data);
        const event = parsed.success ? sipCarrierEvent(parsed.data.data) : undefined;
        // The subject names the call's account: an event that disagrees is not trusted.
        const account = eventAccount(EVENTS.sipCallProgress, msg.subject);
        if (!parsed.success || !event || account !== parsed.data.account_id) {
          log.error({ event_id: msg.id, subject: msg.subject }, 'SIP progress outside its contract: dropped');
          return;
        }
        const progress = parsed.data.data;
        await apply(progress.call_id, event);
        if (event.type === 'ended') this.settle(progress.call_id);
        log.debug(
          {
            call_id: progress.call_id,
            sequence: progress.sequence,
            type: progress.type,
            delivery: msg.deliveryCount,
          },
          'SIP progress handled',
        );
      },
    });
  }

  /** Stops tracking a call that ended (here or on another instance). */
  settle(callId: string): void {
    this.sessions.get(callId)?.settle();
  }

  /** Calls dialed from this instance that have not ended as far as it knows. */
  openCallIds(): string[] {
    return [...this.sessions.keys()];
  }

  /** Stops tracking (and dialing) everything: on a stop, the calls are handed back to be resumed. */
  stop(): void {
    for (const session of [...this.sessions.values()]) session.settle();
  }

  private start(
    request: DialRequest,
    onEvent: (event: CarrierEvent) => Promise<void>,
    send: boolean,
  ): CallSession {
    this.sessions.get(request.callId)?.settle();
    let settle!: () => void;
    const done = new Promise<void>((resolve) => {
      settle = resolve;
    });
    const session: Session = {
      done,
      settled: false,
      settle: () => {
        if (session.settled) return;
        session.settled = true;
        if (this.sessions.get(request.callId) === session) this.sessions.delete(request.callId);
        settle();
      },
      // The telephony service ends the call and reports it (ended_by system) like any other end.
      hangUp: () => this.hangUp(request.accountId, request.callId),
    };
    this.sessions.set(request.callId, session);
    if (send) void this.send(request, session, onEvent);
    return session;
  }

  /** Asks the telephony service to dial, again while it cannot be reached; fails the call if it never can. */
  private async send(
    request: DialRequest,
    session: Session,
    onEvent: (event: CarrierEvent) => Promise<void>,
  ): Promise<void> {
    const { bus, log } = this.options;
    let body: SipDialRequest | undefined;
    for (let attempt = 0; !session.settled; attempt++) {
      try {
        body ??= sipDialBody(request, await this.promptOf(request), this.maxCallSeconds);
        await callRpc(bus, TELEPHONY.dial, body, contextOf(request));
        return;
      } catch (error) {
        const code = error instanceof AppError ? error.code : undefined;
        const wait = code && TRANSIENT.has(code) ? this.retryMs[attempt] : undefined;
        if (wait !== undefined) {
          await sleep(wait);
          continue;
        }
        const detail =
          body === undefined
            ? 'the call could not be dialed: its prompt could not be read'
            : error instanceof AppError
              ? `the telephony service did not take the call: ${error.code}: ${error.message}`
              : 'the telephony service did not take the call';
        log.warn({ err: error, call_id: request.callId }, 'SIP dial failed; the call fails as carrier_error');
        const mayHaveDialed = body !== undefined && code !== undefined && TRANSIENT.has(code);
        await this.fail(request, session, onEvent, detail, mayHaveDialed);
        return;
      }
    }
  }

  /** The call's prompt; a store that cannot be read is a failure that may pass, like the bus's. */
  private async promptOf(request: DialRequest): Promise<string> {
    if (request.promptHash === undefined) return '';
    let prompt: string | null;
    try {
      prompt = await this.options.prompt(request.promptHash);
    } catch (error) {
      throw new AppError('SERVICE_UNAVAILABLE', 'the prompt of the call could not be read', { cause: error });
    }
    if (prompt === null) {
      // Placed by an instance that kept no prompts: the engine still has the goal, details and flows.
      this.options.log.warn({ call_id: request.callId }, 'no prompt kept for a SIP call; dialed without one');
    }
    return prompt ?? '';
  }

  private async fail(
    request: DialRequest,
    session: Session,
    onEvent: (event: CarrierEvent) => Promise<void>,
    detail: string,
    mayHaveDialed: boolean,
  ): Promise<void> {
    const at = new Date();
    try {
      await onEvent({ type: 'ended', at, result: sipCallResult(undialedEnd(at, detail), null) });
      session.settle();
    } catch (error) {
      // Stopping (or the database is away): the call stays undialed-looking and is resumed, and
      // so dialed again, by whichever instance takes it over.
      this.options.log.warn({ err: error, call_id: request.callId }, 'could not fail an undialed SIP call');
      return;
    }
    // A request that timed out may still have been taken: no phone rings for a call that failed.
    if (mayHaveDialed) await this.hangUp(request.accountId, request.callId).catch(() => undefined);
  }
}
