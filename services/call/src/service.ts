import { randomUUID } from 'node:crypto';
import {
  AGENT,
  AgentCopies,
  callRpc,
  defineService,
  type ServiceDeps,
  type ServiceHandle,
  STREAMS,
  serveHealth,
  startOutboxRelay,
  TELEPHONY,
} from '@voice/shared';
import { AccountLimitsApp } from './app/account-limits';
import { CallExport } from './app/call-export';
import { startCallKeeper } from './app/call-keeper';
import { CallsApp } from './app/calls';
import { DoNotCallApp } from './app/do-not-call';
import { RecordingsApp } from './app/recordings';
import { SimulatedCarrier, SipCarrier, type TelephonyProvider } from './carrier/index';
import { PromptStore } from './db/prompt-store';
import { serveCalls } from './handlers/calls';

export interface CallServiceOptions {
  /**
   * The network of calls no SIP trunk carries; the simulated carrier unless another provider is
   * plugged in. Calls over a trunk always go through the telephony service.
   */
  provider?: TelephonyProvider;
  /** Waits between attempts to hand a SIP call to an unreachable telephony service (default ~30 s in all). */
  sipDialRetryMs?: readonly number[];
}

/** The call service: places calls, drives them through the carrier, and serves their history. */
export function createCallService(deps: ServiceDeps, options: CallServiceOptions = {}): ServiceHandle {
  const { config } = deps;
  const provider = options.provider ?? new SimulatedCarrier({ timeScale: config.SIM_TIME_SCALE });
  const prompts = new PromptStore(deps.sql);
  const sip = new SipCarrier({
    bus: deps.bus,
    log: deps.log,
    maxCallSeconds: config.SIP_MAX_CALL_SECONDS,
    prompt: (hash) => prompts.find(hash),
    ...(options.sipDialRetryMs ? { dialRetryMs: options.sipDialRetryMs } : {}),
  });
  const instanceId = `call-${randomUUID().slice(0, 8)}`;
  const agents = new AgentCopies(deps.bus, deps.log, (ctx, agentId) =>
    callRpc(deps.bus, AGENT.snapshot, { agent_id: agentId }, ctx),
  );
  const doNotCall = new DoNotCallApp(deps.sql);
  const calls = new CallsApp({
    doNotCall,
    agents,
    dialsPerSecond: config.CALL_DIALS_PER_SECOND,
    sql: deps.sql,
    bus: deps.bus,
    log: deps.log,
    provider,
    sip,
    prompts,
    route: (ctx, sourceNumber) => callRpc(deps.bus, TELEPHONY.route, { source_number: sourceNumber }, ctx),
    instanceId,
    leaseSeconds: config.CALL_LEASE_SECONDS,
    metrics: deps.metrics,
  });
  const limits = new AccountLimitsApp({
    sql: deps.sql,
    log: deps.log,
    changed: (accountId) => calls.limitChanged(accountId),
    unknown: (accountId) => calls.warnUnknownLimit(accountId),
  });
  return defineService({
    name: 'call',
    subscriptions: [
      serveHealth(deps, 'call', { telephony: provider.info }),
      agents.listen(),
      sip.consume((callId, event) => calls.apply(callId, event)),
      ...serveCalls(
        deps,
        calls,
        new CallExport(deps.sql),
        new RecordingsApp(deps.sql, provider),
        doNotCall,
        limits,
      ),
    ],
    background: [
      () =>
        startOutboxRelay({
          sql: deps.sql,
          bookkeepingSql: deps.bookkeepingSql,
          schema: 'call',
          bus: deps.bus,
          log: deps.log,
          streams: [STREAMS.callEvents, STREAMS.callProgressEvents],
        }),
      async () => {
        const keeper = startCallKeeper({
          sql: deps.sql,
          log: deps.log,
          calls,
          instanceId,
          leaseSeconds: config.CALL_LEASE_SECONDS,
          stuckAfterMs: {
            simulated: provider.maxCallSeconds * 1000 * config.SIM_TIME_SCALE + config.CALL_STUCK_GRACE_MS,
            sip: sip.maxCallSeconds * 1000 + config.CALL_STUCK_GRACE_MS,
          },
        });
        return {
          // Calls in flight are handed back (leases released) for a restart or a replica to resume.
          stop: async () => {
            await keeper.stop();
            await calls.detach();
            sip.stop();
          },
        };
      },
    ],
  });
}
