import { buildGateway, type Gateway, type GatewayDeps } from '@voice/gateway';
import { type Config, type Logger, migrate, type ServiceHandle, type ServiceName } from '@voice/shared';
import type { FastifyPluginAsync } from 'fastify';
import { type Component, componentsOf, GATEWAY_MIGRATIONS, type Role, SERVICES } from './components';
import { ensureDevelopmentKey } from './dev-account';
import { type Infrastructure, openInfrastructure } from './infrastructure';

export interface RunningPlatform {
  role: Role;
  /** Base URL of the gateway, when this process runs it. */
  url: string | undefined;
  gateway: Gateway | undefined;
  services: Map<ServiceName, ServiceHandle>;
  infrastructure: Infrastructure;
  /** The development API key (embedded default only). */
  devKey: string | undefined;
  /** Stops one service (tests use it to see the platform degrade). */
  stopService(name: ServiceName): Promise<void>;
  /** Graceful: stop accepting, finish in-flight work, drain the bus, close the database. */
  stop(): Promise<void>;
}

export interface PlatformOptions {
  role: Role;
  config: Config;
  log: Logger;
  /** True for the one-process embedded default: creates the development account and key. */
  embedded: boolean;
  /** Extra gateway surfaces (GraphQL, tRPC, test routes). */
  surfaces?: FastifyPluginAsync<GatewayDeps>[];
}

async function migrateAll(infra: Infrastructure, components: Component[], log: Logger): Promise<void> {
  const sql = infra.openSql('migrations');
  try {
    await Promise.all(
      components.map((c) => migrate(sql, c === 'gateway' ? GATEWAY_MIGRATIONS : SERVICES[c].migrations, log)),
    );
  } finally {
    await sql.end({ timeout: 5 });
  }
}

export async function startPlatform(options: PlatformOptions): Promise<RunningPlatform> {
  const { config, log, role } = options;
  const components = componentsOf(role);
  const infrastructure = await openInfrastructure(config, log, `voice-${role}`);
  try {
    await migrateAll(infrastructure, components, log);
    // Every service registers its handlers and consumers before any starts background work.
    const services = new Map<ServiceName, ServiceHandle>();
    for (const component of components) {
      if (component === 'gateway') continue;
      const deps = {
        bus: infrastructure.bus,
        sql: infrastructure.openSql(component),
        log: log.child({ service: component }),
      };
      services.set(component, SERVICES[component].create(deps));
    }
    await Promise.all([...services.values()].map((s) => s.start()));

    let gateway: Gateway | undefined;
    let url: string | undefined;
    let devKey: string | undefined;
    if (components.includes('gateway')) {
      const sql = infrastructure.openSql('gateway');
      gateway = await buildGateway({
        bus: infrastructure.bus,
        sql,
        log: log.child({ service: 'gateway' }),
        adminToken: config.ADMIN_TOKEN,
        trustProxy: config.TRUST_PROXY,
        ...(options.surfaces ? { surfaces: options.surfaces } : {}),
      });
      if (options.embedded) devKey = await ensureDevelopmentKey(gateway.deps.accounts, config, log);
      url = await gateway.app.listen({ port: config.PORT, host: config.HOST });
    }

    const stopService = async (name: ServiceName) => {
      await services.get(name)?.stop();
      services.delete(name);
    };
    return {
      role,
      url,
      gateway,
      services,
      infrastructure,
      devKey,
      stopService,
      async stop() {
        await gateway?.app.close();
        await Promise.allSettled([...services.keys()].map(stopService));
        await infrastructure.close();
      },
    };
  } catch (error) {
    await infrastructure.close().catch(() => {});
    throw error;
  }
}
