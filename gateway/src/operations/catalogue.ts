import { AGENT_OPERATIONS } from './agents';
import { CALL_OPERATIONS } from './calls';
import { CAMPAIGN_OPERATIONS } from './campaigns';
import { DISCOVERY_OPERATIONS } from './discovery';
import { DO_NOT_CALL_OPERATIONS } from './do-not-call';
import { me } from './me';
import { named } from './operation';
import { PROMPT_OPERATIONS } from './prompts';
import { SIP_TRUNK_OPERATIONS } from './sip-trunks';
import { WEBHOOK_ENDPOINT_OPERATIONS } from './webhook-endpoints';
import { WEBHOOK_OPERATIONS } from './webhooks';

/**
 * Every operation of the public API, keyed by its name: its tRPC path, and the source of its REST
 * operationId. Each entry (one file per resource) states its scope, input and reply (zod), what runs
 * it, its REST route and its GraphQL field, and every surface is generated from it: the REST routes
 * (http/rpc-route.ts), the GraphQL fields and resolvers (graphql/operation-fields.ts, resolvers.ts)
 * and the tRPC router (trpc/router.ts), all running it through invoke (operation.ts). The inputs are
 * REST's shapes (snake_case bodies and queries; the resource named `id`). The order is the order
 * the REST paths and the GraphQL root fields are listed in.
 *
 * Not operations, so REST routes of their own (routes/): what answers no JSON value an operation
 * could return to every surface (the call export streams CSV or JSON lines; a recording streams
 * audio with its own signed-link check), what reports on the gateway itself rather than running a
 * service's operation (health, liveness, metrics, the OpenAPI document), and the operator's /admin
 * routes, which are REST only and take the admin token, not an API key.
 */
export const OPERATIONS = named({
  ...DISCOVERY_OPERATIONS,
  me,
  ...AGENT_OPERATIONS,
  ...PROMPT_OPERATIONS,
  ...CALL_OPERATIONS,
  ...DO_NOT_CALL_OPERATIONS,
  ...CAMPAIGN_OPERATIONS,
  ...WEBHOOK_OPERATIONS,
  ...WEBHOOK_ENDPOINT_OPERATIONS,
  ...SIP_TRUNK_OPERATIONS,
});

export type OperationName = keyof typeof OPERATIONS;
