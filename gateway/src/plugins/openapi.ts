import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { EXAMPLE_IDS } from '@voice/shared';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import { withTidySchemas } from '../http/openapi-components';
import { withStandardHeaders } from '../http/openapi-headers';
import { withBodyExampleKey, withBodyExamples } from '../http/openapi-operation';
import { ALL_WEBHOOKS } from '../http/openapi-webhooks';
import { PUBLIC } from '../http/route-auth';

export const OPENAPI_PATH = '/v1/openapi.json';

const DESCRIPTION = `Create AI voice agents and have them place outbound calls, one at a time or in campaigns.

Every successful response is \`{ data, request_id, timestamp, success: true }\`; every error is
\`{ detail, request_id, timestamp, success: false }\` where \`detail\` is a string, or for 422 a list of
\`{ loc, msg, type }\` (\`loc[0]\` is \`body\`, \`query\` or \`path\`). A resource of another account is a 404.
Query parameters are read only where an operation documents them; elsewhere they are ignored.

Rate limits: a fixed one-minute window per API key (free 60, pro 300, enterprise per account); public and
unauthenticated requests are counted per client IP at 300 per minute. Every response carries
\`X-RateLimit-Limit\`, \`X-RateLimit-Remaining\` and \`X-RateLimit-Reset\` (Unix seconds when the window ends);
429 adds \`Retry-After\` (seconds). No window admits more than the limit across every gateway instance. A GraphQL
operation counts one request per root field it runs (each alias one more), a tRPC batch one per call, a graphql-ws
\`connection_init\` one; a request that counts as more than is left is refused whole, before any of it runs. For a key
sending 50 or more requests a second to one instance, that instance counts up to half a second of its traffic ahead,
so with several instances its \`X-RateLimit-Remaining\` may not yet include the other instances' last half second.
A revoked key is refused on every instance as soon as PostgreSQL announces its revocation, at commit. \`X-Request-Id\` (up to 128 of \`[A-Za-z0-9._-]\`) is echoed, or generated.

\`servers\` is the deployment's PUBLIC_BASE_URL when its operator set one, else \`/\` (the server this document came
from). Every request body has an example that is valid as it is, except for the ids in it, which name nothing:
put the id of one of your agents in place of \`${EXAMPLE_IDS.agent}\`. What the platform sends to your server
when a call ends is under \`webhooks\` (CALL_ENDED); what it sends to an account's webhook endpoints is there too
(ENDPOINT_CALL_RINGING, ENDPOINT_CAMPAIGN_COMPLETED, ...).`;

export interface OpenApiOptions {
  /** PUBLIC_BASE_URL, when the operator set it: the document's server. */
  publicUrl?: string | undefined;
}

/**
 * The document's `servers`: the configured public URL, which code generators need absolute; or
 * else `/`, the server the document was fetched from (Swagger UI and most tools resolve it so).
 */
export function serversFor(publicUrl: string | undefined) {
  if (publicUrl === undefined) {
    return [{ url: '/', description: 'The server this document was fetched from' }];
  }
  // A trailing slash would double the paths' own (`/v1/...`).
  return [{ url: publicUrl.replace(/\/+$/, ''), description: 'This deployment (PUBLIC_BASE_URL)' }];
}

/** The OpenAPI 3.1 document, generated from the zod route schemas, and Swagger UI from node_modules. */
export const openapiPlugin = fp<OpenApiOptions>(
  async (app: FastifyInstance, options) => {
    await app.register(swagger, {
      openapi: {
        openapi: '3.1.0',
        info: { title: 'Voice Agent Calling API', version: '1.0.0', description: DESCRIPTION },
        servers: serversFor(options.publicUrl),
        webhooks: ALL_WEBHOOKS,
        components: {
          securitySchemes: {
            bearerAuth: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <API_KEY>' },
            adminToken: {
              type: 'http',
              scheme: 'bearer',
              description: 'Authorization: Bearer <ADMIN_TOKEN>',
            },
          },
        },
        tags: [
          { name: 'System', description: 'Health and the API description' },
          {
            name: 'Discovery',
            description: 'Public catalogue: industries, agent types, voices, languages, models',
          },
          { name: 'Agents', description: 'Voice agents, their prompts and prompt versions' },
          {
            name: 'Calls',
            description:
              'Outbound calls: place, follow, read history. Calls are simulated by default (see POST /v1/call ' +
              'and GET /v1/health). Costs are in USD: telephony 0.014 and AI 0.06 per minute of connected time ' +
              '(`duration`: wall-clock time from answer to hang-up), billed per started second; unanswered calls ' +
              'cost nothing. call_end_reason and ended_by take the values listed in the Call schema.',
          },
          {
            name: 'Do-not-call list',
            description:
              'Numbers the account never calls: a call to one is refused (422), a campaign contact on one ' +
              'skipped; a callee who asks not to be called again is added automatically',
          },
          {
            name: 'Campaigns',
            description: 'Calls to a list of contacts, at most max_concurrent_calls at a time, with retries',
          },
          {
            name: 'Webhooks',
            description:
              'CALL_ENDED deliveries to the agent\u2019s webhook_config.url (see `webhooks`): their log, ' +
              'redelivery and test events',
          },
          {
            name: 'Webhook endpoints',
            description:
              'Account webhook endpoints: the account\u2019s call and campaign events (see `webhooks`), secret ' +
              'rotation, their delivery log, redelivery and test events',
          },
          {
            name: 'SIP trunks',
            description:
              'The carriers the account\u2019s calls go out through (any SIP trunk provider or PBX), and which ' +
              'source numbers each carries',
          },
          { name: 'Admin', description: 'Operator API, enabled by ADMIN_TOKEN' },
        ],
      },
      transform: (input) => withBodyExampleKey(jsonSchemaTransform(input)),
      transformObject: (input) =>
        withTidySchemas(
          withBodyExamples(
            withStandardHeaders(
              jsonSchemaTransformObject(input) as Parameters<typeof withStandardHeaders>[0],
            ),
          ),
        ),
    });
    await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { url: OPENAPI_PATH } });
    app.get(OPENAPI_PATH, { schema: { hide: true }, config: { auth: PUBLIC } }, async () => app.swagger());
  },
  { name: 'openapi' },
);
