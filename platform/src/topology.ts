import { SERVICE_NAMES } from '@voice/shared';

/**
 * The production topology: every role its own process (container, pod), and how many of each by
 * default. `pnpm start:cluster` starts it; infra/docker/compose.yaml and infra/k8s describe the same,
 * which `pnpm infra:check` verifies against these numbers.
 */
export const CLUSTER_ROLES = ['gateway', ...SERVICE_NAMES] as const;
export type ClusterRole = (typeof CLUSTER_ROLES)[number];

export const CLUSTER_DEFAULTS = {
  /** GATEWAY_REPLICAS: two, so one can be lost or rolled while the other serves. */
  gatewayReplicas: 2,
  /** REPLICAS: processes per service; two, so a crash is taken over by the other at once. */
  replicas: 2,
} as const;
