import { inject } from 'vitest';

/**
 * Which infrastructure modes this test run covers. `embedded` always runs (in-process bus,
 * embedded PostgreSQL); `nats` runs when NATS_URL and DATABASE_URL are set and reachable.
 * Under REQUIRE_INFRA=1 the global setup fails the run instead of leaving `nats` out.
 */
export type InfraMode = 'embedded' | 'nats';

export interface TestInfra {
  modes: InfraMode[];
  /** Admin connection string of the embedded PostgreSQL server started for this run. */
  embeddedDatabaseUrl: string;
  /** Admin connection string of the external PostgreSQL (DATABASE_URL), when reachable. */
  externalDatabaseUrl: string | undefined;
  natsUrl: string | undefined;
  /** Name of the migrated template database present on every server above. */
  templateDatabase: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    infra: TestInfra;
  }
}

export function testInfra(): TestInfra {
  return inject('infra');
}

export function infraModes(): InfraMode[] {
  return testInfra().modes;
}

export function natsUrlOrThrow(): string {
  const url = testInfra().natsUrl;
  if (!url) throw new Error('NATS is not part of this test run');
  return url;
}
