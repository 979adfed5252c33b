import { natsProcessEnv, type PlatformProcess, spawnPlatform, spawnService } from './process';

/** The service roles a restart test runs beside the gateway, each its own process. */
export type ServiceRole = 'agent' | 'call' | 'webhook' | 'telephony' | 'campaign';

/** How long services starting together may take to report their start on a loaded machine. */
const TOGETHER_START_MS = 150_000;

export interface NatsTopologyOptions {
  databaseUrl: string;
  /** Bus prefix (random hex is added: the run's subjects, streams and durables are its own). */
  prefix: string;
  adminToken: string;
  simTimeScale: number;
  /** Settings every process gets, beside natsProcessEnv's. */
  env?: Record<string, string>;
  /** The services started; the telephony service routes each call to its carrier at placement. */
  services?: readonly ServiceRole[];
  /** Settings of one role only (e.g. the campaign service's test clock). */
  roleEnv?: Partial<Record<ServiceRole, Record<string, string>>>;
}

export interface NatsTopology {
  /** The environment the processes share. */
  env: Record<string, string>;
  gatewayUrl: string;
  /** The running process of a role (the latest, after a restart). */
  service(role: ServiceRole): PlatformProcess;
  /** kill -9 of a role's process; resolves once it exited (with no exit code: killed by the signal). */
  kill(role: ServiceRole): Promise<number | null>;
  /** Starts a role again, with its settings and `extra` over them (e.g. a later test clock). */
  restart(role: ServiceRole, extra?: Record<string, string>): Promise<PlatformProcess>;
  /** kill -9 of every process ever started. */
  stop(): Promise<void>;
}

/**
 * The NATS topology of the restart tests: the gateway and each service its own process on NATS
 * and the test's PostgreSQL database.
 */
export async function startNatsTopology(options: NatsTopologyOptions): Promise<NatsTopology> {
  const env = natsProcessEnv(
    {
      databaseUrl: options.databaseUrl,
      prefix: options.prefix,
      adminToken: options.adminToken,
      simTimeScale: options.simTimeScale,
    },
    options.env,
  );
  const roles = options.services ?? ['agent', 'call', 'webhook', 'telephony'];
  const envOf = (role: ServiceRole, extra: Record<string, string> = {}) => ({
    ...env,
    ...options.roleEnv?.[role],
    ...extra,
  });
  // The gateway first: six processes compiling at once on a loaded machine kept its banner past
  // its deadline (it starts in seconds on its own). The services start together, and so may take
  // longer than one alone: the deadline only catches a hang.
  const gateway = await spawnPlatform('gateway', env);
  const all: PlatformProcess[] = [gateway];
  const current = new Map<ServiceRole, PlatformProcess>();
  const started = await Promise.allSettled(
    roles.map((role) => spawnService(role, envOf(role), TOGETHER_START_MS)),
  );
  started.forEach((result, i) => {
    if (result.status === 'fulfilled') {
      all.push(result.value);
      current.set(roles[i]!, result.value);
    }
  });
  const failed = started.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) {
    await Promise.all(all.map((p) => p.stop('SIGKILL')));
    throw failed.reason;
  }

  const service = (role: ServiceRole): PlatformProcess => {
    const found = current.get(role);
    if (!found) throw new Error(`no ${role} service in this topology`);
    return found;
  };
  return {
    env,
    gatewayUrl: gateway.url!,
    service,
    kill: (role) => service(role).stop('SIGKILL'),
    async restart(role, extra) {
      const proc = await spawnService(role, envOf(role, extra));
      all.push(proc);
      current.set(role, proc);
      return proc;
    },
    async stop() {
      await Promise.all(all.map((p) => p.stop('SIGKILL')));
    },
  };
}
