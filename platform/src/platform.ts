import type { TelephonyProvider } from '@voice/call-service';
import type { Gateway, GatewayDeps } from '@voice/gateway';
import {
  type Clock,
  type Config,
  httpLimits,
  instrumentBus,
  type Logger,
  METRICS_PATH,
  Metrics,
  type MetricsServer,
  migrate,
  type ServiceHandle,
  type ServiceName,
  simulatedTelephonyInfo,
  startMetricsServer,
  type TelephonyProviderInfo,
} from '@voice/shared';
import type { FastifyPluginAsync } from 'fastify';
import {
  type Component,
  componentsOf,
  loadGateway,
  type Role,
  SERVICES,
  type ServiceComponent,
} from './components';
import { ensureDevelopmentKey } from './dev-account';
import { applyHeapGrowthPolicy, defaultHeapGrowthPercent } from './heap-policy';
import { type Infrastructure, openInfrastructure, runStages, StartupCleanupError } from './infrastructure';
import { recordingSecret } from './recording-secret';
import { testClockFromEnvironment } from './test-clock';

export interface RunningPlatform {
  role: Role;
  /** Base URL of the gateway, when this process runs it. */
  url: string | undefined;
  gateway: Gateway | undefined;
  services: Map<ServiceName, ServiceHandle>;
  infrastructure: Infrastructure;
  /** The development API key (embedded default only). */
  devKey: string | undefined;
  /** The telephony provider of the call service this process runs; undefined when it runs none. */
  telephony: TelephonyProviderInfo | undefined;
  /** This process's metrics registry (gateway, bus and services together). */
  metrics: Metrics;
  /**
   * Where /metrics answers: HOST:METRICS_PORT when set, else the gateway's own port in the
   * all-in-one process; undefined when this process serves no metrics.
   */
  metricsUrl: string | undefined;
  /** Stops one service (tests use it to see the platform degrade). */
  stopService(name: ServiceName): Promise<void>;
  /**
   * Graceful, in the reverse order of start: the gateway stops accepting and finishes its
   * requests; the metrics listener closes; every service's background work (outbox relays,
   * timers) stops; then every service's handlers and consumers; then the bus drains and closes;
   * then the database pools; then the embedded PostgreSQL. Every stage runs even if one before it failed; failures are logged and
   * thrown together (AggregateError) at the end. Idempotent.
   */
  stop(): Promise<void>;
}

export interface PlatformOptions {
  role: Role;
  config: Config;
  log: Logger;
  /** True for the one-process embedded default: creates the development account and key. */
  embedded: boolean;
  /** The telephone network the call service dials through; the simulated carrier by default. */
  callProvider?: TelephonyProvider;
  /**
   * The time the campaign service judges calling windows and due contacts by: a test's clock it
   * moves; else VOICE_TEST_CLOCK's (test runs only, see test-clock.ts); else real time.
   */
  campaignClock?: Clock;
  /** Extra gateway surfaces (GraphQL, tRPC, test routes). */
  surfaces?: FastifyPluginAsync<GatewayDeps>[];
  /**
   * Abandons start-up (a shutdown signal arrived): the step under way finishes, then everything
   * started so far is stopped and startPlatform rejects with the signal's reason.
   */
  signal?: AbortSignal;
}

/** The code of this process's components, loaded once (only what the role runs). */
interface Loaded {
  gateway: Awaited<ReturnType<typeof loadGateway>> | undefined;
  services: Map<ServiceName, ServiceComponent>;
}

async function loadComponents(components: Component[]): Promise<Loaded> {
  const [gateway, ...services] = await Promise.all([
    components.includes('gateway') ? loadGateway() : undefined,
    ...components
      .filter((c): c is ServiceName => c !== 'gateway')
      .map(async (c) => [c, await SERVICES[c]()] as const),
  ]);
  return { gateway, services: new Map(services as Array<readonly [ServiceName, ServiceComponent]>) };
}

async function migrateAll(infra: Infrastructure, loaded: Loaded, log: Logger): Promise<void> {
  const sql = infra.openSql('migrations');
  const sets = [
    ...(loaded.gateway ? [loaded.gateway.migrations] : []),
    ...[...loaded.services.values()].map((s) => s.migrations),
  ];
  try {
    await Promise.all(sets.map((set) => migrate(sql, set, log)));
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/** Runs `stop` on every handle at once; throws them all together if any failed. */
async function settleAll(handles: ServiceHandle[], stop: (s: ServiceHandle) => Promise<void>): Promise<void> {
  const outcomes = await Promise.allSettled(handles.map(stop));
  const errors = outcomes.flatMap((o) => (o.status === 'rejected' ? [o.reason] : []));
  if (errors.length > 0) throw new AggregateError(errors, `${errors.length} service(s) failed to stop`);
}

export async function startPlatform(options: PlatformOptions): Promise<RunningPlatform> {
  const { config, log, role, signal } = options;
  applyHeapGrowthPolicy(config.HEAP_GROWTH_PERCENT ?? defaultHeapGrowthPercent(role));
  const components = componentsOf(role);
  // Parsed before anything starts: a test clock set where it must not be refuses the start.
  const campaignClock = options.campaignClock ?? testClockFromEnvironment(process.env, log);
  const infrastructure = await openInfrastructure(config, log, `voice-${role}`, signal);
  const services = new Map<ServiceName, ServiceHandle>();
  // One registry for everything this process runs; the bus times every request on both sides.
  const metrics = new Metrics({ role });
  const bus = instrumentBus(infrastructure.bus, metrics);
  let gateway: Gateway | undefined;
  let metricsServer: MetricsServer | undefined;
  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= runStages(log, [
      ['close the gateway', async () => gateway?.app.close()],
      ['close the metrics listener', async () => metricsServer?.close()],
      ['stop background work', () => settleAll([...services.values()], (s) => s.stopBackground())],
      ['stop service handlers and consumers', () => settleAll([...services.values()], (s) => s.stop())],
      ['close the bus, database pools and embedded PostgreSQL', () => infrastructure.close()],
    ]);
    return stopping;
  };
  try {
    signal?.throwIfAborted();
    const loaded = await loadComponents(components);
    await migrateAll(infrastructure, loaded, log);
    signal?.throwIfAborted();
    // Services that build links (webhook payloads) get the resolved recording secret and a base URL;
    // only the components that sign links resolve (and maybe generate) the secret. With PORT 0 the
    // gateway's real port is not known yet: HOST:PORT is the fallback for now.
    const secret = components.some((c) => c === 'gateway' || c === 'webhook')
      ? await recordingSecret(config, log)
      : config.RECORDING_URL_SECRET;
    const serviceConfig: Config = {
      ...config,
      RECORDING_URL_SECRET: secret,
      PUBLIC_BASE_URL: config.PUBLIC_BASE_URL ?? `http://${config.HOST}:${config.PORT}`,
    };
    // Every service registers its handlers and consumers before any starts background work.
    for (const component of components) {
      if (component === 'gateway') continue;
      const deps = {
        bus,
        sql: infrastructure.openSql(component),
        bookkeepingSql: infrastructure.openBookkeepingSql(component),
        log: log.child({ service: component }),
        config: serviceConfig,
        metrics,
      };
      services.set(
        component,
        loaded.services.get(component)!.create(deps, {
          callProvider: options.callProvider,
          recordingStore: () => infrastructure.recordingStore(),
          campaignClock,
        }),
      );
    }
    await Promise.all([...services.values()].map((s) => s.start()));
    signal?.throwIfAborted();

    let url: string | undefined;
    let devKey: string | undefined;
    // Off the API port whenever METRICS_PORT is set; on it only in the all-in-one process.
    const metricsOnApiPort = config.METRICS_PORT === undefined && role === 'all';
    if (components.includes('gateway')) {
      const sql = infrastructure.openSql('gateway');
      gateway = await loaded.gateway!.buildGateway({
        bus,
        sql,
        rateLimitSql: infrastructure.openBookkeepingSql('gateway'),
        metrics,
        serveMetrics: metricsOnApiPort,
        log: log.child({ service: 'gateway' }),
        adminToken: config.ADMIN_TOKEN,
        trustProxy: config.TRUST_PROXY,
        http: httpLimits(config),
        recordingSecret: secret ?? (await recordingSecret(config, log)),
        recordingStore: await infrastructure.recordingStore(),
        publicBaseUrl: () => config.PUBLIC_BASE_URL ?? url ?? `http://${config.HOST}:${config.PORT}`,
        publicUrl: config.PUBLIC_BASE_URL,
        ...(options.surfaces ? { surfaces: options.surfaces } : {}),
      });
      if (options.embedded) devKey = await ensureDevelopmentKey(gateway.deps, config, log);
      signal?.throwIfAborted();
      url = await gateway.app.listen({ port: config.PORT, host: config.HOST });
    }
    signal?.throwIfAborted();
    let metricsUrl: string | undefined;
    if (config.METRICS_PORT !== undefined) {
      metricsServer = await startMetricsServer({
        metrics,
        host: config.HOST,
        port: config.METRICS_PORT,
        log: log.child({ component: 'metrics' }),
      });
      metricsUrl = metricsServer.url;
      log.info({ metrics_url: metricsUrl }, `metrics at ${metricsUrl}`);
    } else if (metricsOnApiPort && url) {
      metricsUrl = `${url}${METRICS_PATH}`;
    } else {
      log.info('metrics are not served: set METRICS_PORT (0 = a free port) to serve /metrics');
    }
    signal?.throwIfAborted();

    return {
      role,
      url,
      gateway,
      services,
      infrastructure,
      devKey,
      // The call service dials through the simulated carrier unless a provider was plugged in.
      telephony: components.includes('call')
        ? (options.callProvider?.info ?? simulatedTelephonyInfo(config.SIM_TIME_SCALE))
        : undefined,
      metrics,
      metricsUrl,
      async stopService(name) {
        const service = services.get(name);
        if (!service) return;
        services.delete(name);
        await service.stop();
      },
      stop,
    };
  } catch (error) {
    // Stop failures are logged stage by stage; the start-up failure stays the headline.
    const cleanup = await stop().then(
      () => undefined,
      (stopError: unknown) => stopError,
    );
    throw cleanup ? new StartupCleanupError(error, cleanup) : error;
  }
}
