/**
 * `pnpm infra:check`: validates infra/ without a container engine or a cluster.
 *
 * - infra/docker/compose.yaml against the Compose specification's JSON schema
 *   (infra/schemas/compose-spec.json), and with `docker compose config -q` when the Compose
 *   plugin is installed;
 * - every resource of infra/k8s/kustomization.yaml (and secret.example.yaml) against
 *   infra/schemas/k8s-subset.schema.json, by kind;
 * - infra/k8s/podmonitor.yaml (optional, for the Prometheus operator) against the same schema;
 * - infra/nats/nats-server.conf with `nats-server -t` when nats-server is installed;
 * - infra/grafana/*.json: every metric a dashboard query names is one the platform exports;
 * - consistency: the same topology as `pnpm start:cluster` (every role, GATEWAY_REPLICAS gateways
 *   and REPLICAS processes of each service), only environment variables the platform reads
 *   (shared/src/config.ts) with values it accepts, the secrets every role needs, images, commands
 *   and ports that match infra/docker/Dockerfile, and /metrics served and announced on every role.
 *
 * Everything is local: the schemas are vendored, nothing is fetched. Exits 1 on any failure.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { parseAllDocuments } from 'yaml';
import { CLUSTER_DEFAULTS, CLUSTER_ROLES } from '../../platform/src/topology';
import { ConfigSchema } from '../../shared/src/config';
import { dashboardQueries, exportedSeries, metricsInPromQL } from './metric-names';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const at = (...parts: string[]) => join(ROOT, ...parts);
const rel = (path: string) => path.slice(ROOT.length);

/** Read by the platform outside ConfigSchema: allowed in the environment of every role. */
const NON_CONFIG_ENV: Record<string, string> = {
  NODE_ENV: 'Node.js and libraries (production in the image)',
  VOICE_MIGRATIONS_DIR: 'where the bundle finds its migrations (shared/src/db/migrate.ts)',
};
/**
 * What each role needs in production: NATS and PostgreSQL; and for the roles that build or check
 * recording links (gateway, webhook payloads), the one shared key (else each process generates its
 * own and links fail on another replica) and the public address (else links name the listen address).
 */
function requiredEnv(role: string): string[] {
  const base = ['NATS_URL', 'DATABASE_URL'];
  return role === 'gateway' || role === 'webhook'
    ? [...base, 'RECORDING_URL_SECRET', 'PUBLIC_BASE_URL']
    : base;
}
const CONFIG_KEYS = new Set(Object.keys(ConfigSchema.shape));

let failures = 0;
function check(ok: boolean, what: string, detail?: string): void {
  if (ok) {
    process.stdout.write(`  ok    ${what}\n`);
  } else {
    failures++;
    process.stdout.write(
      `  FAIL  ${what}${detail ? `\n        ${detail.replaceAll('\n', '\n        ')}` : ''}\n`,
    );
  }
}
function section(title: string): void {
  process.stdout.write(`\n${title}\n`);
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Every YAML document of a file, with YAML errors (duplicate keys included) as failures. */
function loadYaml(path: string): Json[] {
  const docs = parseAllDocuments(readFileSync(path, 'utf8'), { merge: true, uniqueKeys: true });
  const list = Array.isArray(docs) ? docs : [docs];
  const errors = list.flatMap((d) => d.errors.map((e) => e.message));
  check(errors.length === 0, `${rel(path)} parses as YAML`, errors.join('\n'));
  return list.map((d) => d.toJS({ maxAliasCount: 100 }) as Json).filter((d) => d !== null);
}

function explain(errors: ErrorObject[] | null | undefined): string {
  return (errors ?? [])
    .slice(0, 10)
    .map((e) => `${e.instancePath || '/'} ${e.message}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`)
    .join('\n');
}

const ajv = new Ajv({ allErrors: true, strict: false });
// The Compose schema names draft 07 by its https address; Ajv registers draft 07 as http://...#.
const composeSchema = ajv.compile({
  ...JSON.parse(readFileSync(at('infra/schemas/compose-spec.json'), 'utf8')),
  $schema: 'http://json-schema.org/draft-07/schema#',
});
ajv.addSchema(JSON.parse(readFileSync(at('infra/schemas/k8s-subset.schema.json'), 'utf8')));
function k8sValidator(kind: string): ValidateFunction | undefined {
  return ajv.getSchema(`k8s-subset.schema.json#/definitions/${kind}`);
}

/** The runtime stage of the Dockerfile: ENV names, EXPOSE, ENTRYPOINT, CMD, COPY sources. */
function dockerfile(): {
  env: Set<string>;
  expose: string[];
  entrypoint: string[];
  cmd: string[];
  copies: string[];
} {
  const text = readFileSync(at('infra/docker/Dockerfile'), 'utf8').replace(/\\\n/g, ' ');
  const lines = text.split('\n').map((l) => l.trim());
  const start = lines.findLastIndex((l) => /^FROM\s/i.test(l));
  const stage = lines.slice(start).filter((l) => l && !l.startsWith('#'));
  const env = new Set<string>();
  const result = {
    env,
    expose: [] as string[],
    entrypoint: [] as string[],
    cmd: [] as string[],
    copies: [] as string[],
  };
  for (const line of stage) {
    const [instruction = '', ...rest] = line.split(/\s+/);
    const args = rest.join(' ');
    switch (instruction.toUpperCase()) {
      case 'ENV':
        for (const m of args.matchAll(/([A-Za-z_][A-Za-z0-9_]*)=/g)) env.add(m[1]!);
        break;
      case 'EXPOSE':
        result.expose.push(...rest);
        break;
      case 'ENTRYPOINT':
        result.entrypoint = JSON.parse(args) as string[];
        break;
      case 'CMD':
        result.cmd = JSON.parse(args) as string[];
        break;
      case 'COPY':
        if (!args.includes('--from=')) result.copies.push(rest[0]!);
        break;
      default:
        break;
    }
  }
  return result;
}

function envProblems(names: Iterable<string>): string[] {
  return [...names].filter((n) => !CONFIG_KEYS.has(n) && !(n in NON_CONFIG_ENV));
}

type FieldSchema = {
  safeParse(value: unknown): { success: boolean; error?: { issues: { message: string }[] } };
};
const CONFIG_FIELDS = ConfigSchema.shape as unknown as Record<string, FieldSchema>;

/**
 * Values the platform would refuse at start-up. A Compose `${NAME:-default}` is checked with its
 * default; a value that stays open (`${NAME}` without one) is the operator's to give.
 */
function envValueProblems(env: Record<string, unknown>): string[] {
  const problems: string[] = [];
  for (const [name, raw] of Object.entries(env)) {
    const field = CONFIG_FIELDS[name];
    if (!field || raw === null || raw === undefined) continue;
    const value = String(raw).replace(/\$\{[A-Za-z_][A-Za-z0-9_]*:?-([^}]*)\}/g, '$1');
    // Empty is unset (loadConfig), and a value left open is the operator's to give.
    if (value === '' || value.includes('${')) continue;
    const parsed = field.safeParse(value);
    if (!parsed.success) problems.push(`${name}=${value}: ${parsed.error?.issues[0]?.message}`);
  }
  return problems;
}

/** Where Prometheus scrapes a process: METRICS_PORT, listened on by every interface. */
function metricsProblems(env: Record<string, unknown>): string[] {
  const problems: string[] = [];
  if (!/^[1-9]\d*$/.test(String(env.METRICS_PORT ?? ''))) problems.push('METRICS_PORT is not a fixed port');
  if (env.HOST !== '0.0.0.0' && env.HOST !== '::')
    problems.push(`HOST is ${env.HOST ?? 'unset (127.0.0.1)'}`);
  return problems;
}

// ---------------------------------------------------------------------------------------------
const image = dockerfile();
section('infra/docker/Dockerfile');
check(
  image.entrypoint.some((a) => a.endsWith('dist/voice.mjs')),
  'ENTRYPOINT runs the bundle (dist/voice.mjs), the role as its argument',
  JSON.stringify(image.entrypoint),
);
check(
  image.cmd.length === 1 && (CLUSTER_ROLES as readonly string[]).includes(image.cmd[0]!),
  'CMD is one role',
  JSON.stringify(image.cmd),
);
check(
  envProblems(image.env).length === 0,
  'ENV sets only variables the platform reads',
  envProblems(image.env).join(', '),
);
check(image.expose.includes('3000'), 'EXPOSE 3000 (the gateway port)', image.expose.join(' '));
for (const source of image.copies) check(existsSync(at(source)), `COPY source ${source} exists`);

// ---------------------------------------------------------------------------------------------
section('infra/docker/compose.yaml');
const composePath = at('infra/docker/compose.yaml');
const [compose = {}] = loadYaml(composePath);
check(
  composeSchema(compose) === true,
  'valid against the Compose specification schema',
  explain(composeSchema.errors),
);
const services = (isObject(compose.services) ? compose.services : {}) as Record<string, Json>;
for (const role of CLUSTER_ROLES) {
  const service = services[role];
  if (!service) {
    check(false, `service ${role} exists`);
    continue;
  }
  const want = role === 'gateway' ? CLUSTER_DEFAULTS.gatewayReplicas : CLUSTER_DEFAULTS.replicas;
  const replicas = (service.deploy as Json | undefined)?.replicas ?? 1;
  check(replicas === want, `${role}: ${want} replicas, as start:cluster`, `deploy.replicas is ${replicas}`);
  check(
    JSON.stringify(service.command) === JSON.stringify([role]),
    `${role}: command [${role}] (the image's ENTRYPOINT takes the role)`,
    JSON.stringify(service.command),
  );
  const build = service.build as Json | undefined;
  const dockerfilePath = build
    ? resolve(dirname(composePath), String(build.context), String(build.dockerfile))
    : '';
  check(
    dockerfilePath === at('infra/docker/Dockerfile'),
    `${role}: built from infra/docker/Dockerfile`,
    `context ${build?.context}, dockerfile ${build?.dockerfile}`,
  );
  check(
    typeof service.image === 'string' && service.image.startsWith('voice-platform:'),
    `${role}: image voice-platform`,
  );
  const env = (isObject(service.environment) ? service.environment : {}) as Json;
  check(
    envProblems(Object.keys(env)).length === 0,
    `${role}: only variables the platform reads`,
    envProblems(Object.keys(env)).join(', '),
  );
  const missing = requiredEnv(role).filter((n) => !(n in env));
  check(
    missing.length === 0,
    `${role}: ${requiredEnv(role).join(', ')} set`,
    `missing ${missing.join(', ')}`,
  );
  check(
    envValueProblems(env).length === 0,
    `${role}: every value (or default) is one the platform accepts`,
    envValueProblems(env).join('\n'),
  );
  const labels = (isObject(service.labels) ? service.labels : {}) as Json;
  const scrape = [
    ...metricsProblems(env),
    ...(labels['prometheus.io/scrape'] === 'true' && labels['prometheus.io/port'] === String(env.METRICS_PORT)
      ? []
      : ['labels prometheus.io/scrape "true" and prometheus.io/port (= METRICS_PORT) missing']),
  ];
  check(
    scrape.length === 0,
    `${role}: serves /metrics on 0.0.0.0:METRICS_PORT, labelled for scraping`,
    scrape.join('\n'),
  );
}
const gatewayPorts = ((services.gateway?.ports as unknown[]) ?? []).map(String);
const range = gatewayPorts.map((p) => /^(?:[\d.]+:)?(\d+)(?:-(\d+))?:3000$/.exec(p)).find(Boolean);
check(
  !!range && Number(range[2] ?? range[1]) - Number(range[1]) + 1 === CLUSTER_DEFAULTS.gatewayReplicas,
  `gateway: one host port per replica (${CLUSTER_DEFAULTS.gatewayReplicas}), to container port 3000`,
  gatewayPorts.join(', '),
);
const composeVersion = spawnSync('docker', ['compose', 'version'], { encoding: 'utf8' });
if (composeVersion.status === 0) {
  const rendered = spawnSync('docker', ['compose', '-f', composePath, 'config', '-q'], { encoding: 'utf8' });
  check(rendered.status === 0, 'docker compose config -q', `${rendered.stderr}`);
} else {
  process.stdout.write('  skip  docker compose config -q (no Docker Compose plugin here)\n');
}

// ---------------------------------------------------------------------------------------------
section('infra/k8s (kustomization resources, secret.example.yaml and podmonitor.yaml)');
const k8sDir = at('infra/k8s');
const [kustomization = {}] = loadYaml(join(k8sDir, 'kustomization.yaml'));
const kustomize = k8sValidator('Kustomization')!;
check(
  kustomize(kustomization) === true,
  'kustomization.yaml is a valid Kustomization',
  explain(kustomize.errors),
);
const resources = ((kustomization.resources as string[]) ?? []).map((r) => join(k8sDir, r));
const objects: { file: string; object: Json }[] = [];
const optional = ['secret.example.yaml', 'podmonitor.yaml'].map((file) => join(k8sDir, file));
for (const file of [...resources, ...optional]) {
  check(existsSync(file), `${rel(file)} exists`);
  if (existsSync(file)) for (const object of loadYaml(file)) objects.push({ file, object });
}
for (const { file, object } of objects) {
  const kind = String(object.kind);
  const name = String((object.metadata as Json | undefined)?.name);
  const validate = k8sValidator(kind);
  if (!validate) {
    check(false, `${rel(file)}: ${kind} ${name} is a kind the schema knows`);
    continue;
  }
  check(validate(object) === true, `${rel(file)}: ${kind} ${name}`, explain(validate.errors));
}
const ofKind = (kind: string) => objects.filter((o) => o.object.kind === kind).map((o) => o.object);
const nameOf = (o: Json) => String((o.metadata as Json).name);
const configMaps = new Map(ofKind('ConfigMap').map((o) => [nameOf(o), ((o.data as Json) ?? {}) as Json]));
const podMonitors = ofKind('PodMonitor');
const secrets = new Map(
  ofKind('Secret').map((o) => [
    nameOf(o),
    Object.keys({ ...((o.stringData as Json) ?? {}), ...((o.data as Json) ?? {}) }),
  ]),
);
const images = new Set(((kustomization.images as Json[]) ?? []).map((i) => String(i.name)));
const matchLabels = (selector: unknown) =>
  ((selector as Json | undefined)?.matchLabels ?? {}) as Record<string, string>;
const selects = (selector: Record<string, string>, labels: Record<string, string>) =>
  Object.keys(selector).length > 0 && Object.entries(selector).every(([k, v]) => labels[k] === v);
for (const role of CLUSTER_ROLES) {
  const deployment = ofKind('Deployment').find((d) => nameOf(d) === `voice-${role}`);
  if (!deployment) {
    check(false, `Deployment voice-${role} exists`);
    continue;
  }
  const spec = deployment.spec as Json;
  const template = spec.template as Json;
  const templateLabels = ((template.metadata as Json | undefined)?.labels ?? {}) as Record<string, string>;
  const want = role === 'gateway' ? CLUSTER_DEFAULTS.gatewayReplicas : CLUSTER_DEFAULTS.replicas;
  check(
    spec.replicas === want,
    `voice-${role}: ${want} replicas, as start:cluster`,
    `replicas is ${spec.replicas}`,
  );
  check(
    selects(matchLabels(spec.selector), templateLabels),
    `voice-${role}: its selector matches its pod labels`,
  );
  const containers = (template.spec as Json).containers as Json[];
  const container = containers[0]!;
  check(
    JSON.stringify(container.args) === JSON.stringify([role]) && container.command === undefined,
    `voice-${role}: args [${role}] to the image's ENTRYPOINT`,
    JSON.stringify({ command: container.command, args: container.args }),
  );
  check(
    images.has(String(container.image)),
    `voice-${role}: image ${container.image} is set by the kustomization`,
  );
  const names = new Set<string>(((container.env as Json[]) ?? []).map((e) => String(e.name)));
  // What the process sees: the ConfigMaps' values, overridden by the container's own env.
  const values: Json = {};
  for (const from of (container.envFrom as Json[]) ?? []) {
    const configMap = (from.configMapRef as Json | undefined)?.name as string | undefined;
    const secret = (from.secretRef as Json | undefined)?.name as string | undefined;
    if (configMap) {
      check(configMaps.has(configMap), `voice-${role}: ConfigMap ${configMap} exists`);
      Object.assign(values, configMaps.get(configMap));
      for (const key of Object.keys(configMaps.get(configMap) ?? {})) names.add(key);
    }
    if (secret) {
      check(secrets.has(secret), `voice-${role}: Secret ${secret} has a template (secret.example.yaml)`);
      for (const key of secrets.get(secret) ?? []) names.add(key);
    }
  }
  check(
    envProblems(names).length === 0,
    `voice-${role}: only variables the platform reads`,
    envProblems(names).join(', '),
  );
  const missing = requiredEnv(role).filter((n) => !names.has(n));
  check(
    missing.length === 0,
    `voice-${role}: ${requiredEnv(role).join(', ')} set`,
    `missing ${missing.join(', ')}`,
  );
  for (const e of (container.env as Json[]) ?? []) if ('value' in e) values[String(e.name)] = e.value;
  check(
    envValueProblems(values).length === 0,
    `voice-${role}: every value is one the platform accepts`,
    envValueProblems(values).join('\n'),
  );
  const metricsPort = Number(values.METRICS_PORT);
  const annotations = ((template.metadata as Json | undefined)?.annotations ?? {}) as Json;
  const portNamed = ((container.ports as Json[]) ?? []).find((p) => p.name === 'metrics');
  const scrape = [
    ...metricsProblems(values),
    ...(portNamed?.containerPort === metricsPort ? [] : ['no container port `metrics` = METRICS_PORT']),
    ...(annotations['prometheus.io/scrape'] === 'true' &&
    annotations['prometheus.io/port'] === String(metricsPort)
      ? []
      : ['pod annotations prometheus.io/scrape "true" and prometheus.io/port (= METRICS_PORT) missing']),
  ];
  check(
    scrape.length === 0,
    `voice-${role}: serves /metrics on METRICS_PORT, announced for scraping`,
    scrape.join('\n'),
  );
  for (const monitor of podMonitors) {
    const spec = monitor.spec as Json;
    const ports = ((spec.podMetricsEndpoints as Json[]) ?? []).map((e) => e.port);
    check(
      selects(matchLabels(spec.selector), templateLabels) && ports.every((p) => p === portNamed?.name),
      `voice-${role}: PodMonitor ${nameOf(monitor)} selects its pods and scrapes its \`metrics\` port`,
    );
  }
  const pdb = ofKind('PodDisruptionBudget').find((p) =>
    selects(matchLabels((p.spec as Json).selector), templateLabels),
  );
  check(!!pdb, `voice-${role}: a PodDisruptionBudget covers it`);
  if (role === 'gateway') {
    const ports = ((container.ports as Json[]) ?? [])
      .filter((p) => p.name === 'http')
      .map((p) => String(p.containerPort));
    check(
      ports.every((p) => image.expose.includes(p)) && ports.length > 0,
      'voice-gateway: its `http` port is the EXPOSEd one',
      ports.join(', '),
    );
    const service = ofKind('Service').find((s) => {
      const selector = ((s.spec as Json).selector ?? {}) as Record<string, string>;
      return selects(selector, templateLabels);
    });
    check(!!service, 'a Service selects the gateway pods');
  }
}

// ---------------------------------------------------------------------------------------------
section('infra/grafana (dashboards)');
const grafanaDir = at('infra/grafana');
const series = await exportedSeries(ROOT);
for (const file of existsSync(grafanaDir) ? readdirSync(grafanaDir).filter((f) => f.endsWith('.json')) : []) {
  const path = join(grafanaDir, file);
  let dashboard: Json = {};
  try {
    dashboard = JSON.parse(readFileSync(path, 'utf8')) as Json;
  } catch (error) {
    check(false, `${rel(path)} parses as JSON`, String(error));
    continue;
  }
  const queries = dashboardQueries(dashboard);
  const unknown = queries.flatMap(({ where, expr }) =>
    metricsInPromQL(expr)
      .filter((name) => !series.has(name))
      .map((name) => `${where}: ${name}`),
  );
  check(
    queries.length > 0 && unknown.length === 0,
    `${rel(path)}: its ${queries.length} queries use only metrics the platform exports`,
    unknown.length > 0 ? `not exported: ${[...new Set(unknown)].join('; ')}` : 'no queries found',
  );
}

// ---------------------------------------------------------------------------------------------
section('infra/nats/nats-server.conf');
const natsServer = ['/usr/sbin/nats-server', 'nats-server'].find(
  (bin) => spawnSync(bin, ['--version'], { encoding: 'utf8' }).status === 0,
);
if (natsServer) {
  try {
    execFileSync(natsServer, ['-t', '-c', at('infra/nats/nats-server.conf')], { stdio: 'pipe' });
    check(true, `${natsServer} -t accepts it`);
  } catch (error) {
    check(false, `${natsServer} -t accepts it`, String((error as { stderr?: Buffer }).stderr ?? error));
  }
} else {
  process.stdout.write('  skip  nats-server -t (nats-server not installed)\n');
}

process.stdout.write(
  failures === 0 ? '\ninfra check passed\n' : `\ninfra check FAILED: ${failures} problem(s)\n`,
);
process.exit(failures === 0 ? 0 : 1);
