// Docker HEALTHCHECK for every role of the image: liveness, not readiness. The gateway (and `all`)
// serves HTTP: healthy when GET /v1/health/live answers 200, which it does while the process runs,
// whatever its dependencies. GET /v1/health (readiness) answers 503 while the gateway cannot reach
// PostgreSQL or NATS; a container marked unhealthy for that would be restarted by tools that act
// on Docker health, and a restart cannot bring a database back. Route traffic on /v1/health
// instead (a load balancer's check). The service roles serve no HTTP: the container is healthy
// while its process runs, and their state shows in the gateway's health report.
import { readFileSync } from 'node:fs';

const ROLES = new Set(['all', 'gateway', 'agent', 'call', 'campaign', 'webhook']);

function roleOfMainProcess() {
  try {
    // PID 1 is `node ... dist/voice.mjs <role>` (or docker-init in front of it with `init: true`).
    const argv = readFileSync('/proc/1/cmdline', 'utf8').split('\0');
    return argv.find((arg) => ROLES.has(arg)) ?? 'all';
  } catch {
    return 'gateway';
  }
}

const role = roleOfMainProcess();
if (role !== 'gateway' && role !== 'all') process.exit(0);

const port = process.env.PORT || '3000';
try {
  const response = await fetch(`http://127.0.0.1:${port}/v1/health/live`, {
    signal: AbortSignal.timeout(2500),
  });
  process.exit(response.ok ? 0 : 1);
} catch {
  process.exit(1);
}
