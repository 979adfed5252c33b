import {
  Account,
  ApiKeyInfo,
  CreateAccountBody,
  CreateApiKeyBody,
  CreatedApiKey,
  Envelope,
  Page,
  PageQuery,
  REQUEST_EXAMPLES,
  Uuid,
} from '@voice/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { GatewayDeps } from '../../deps';
import { envelope } from '../../http/envelope';
import { operationId } from '../../http/openapi-operation';
import { ADMIN } from '../../http/route-auth';
import { errorResponses } from '../../http/schemas';

const security = [{ adminToken: [] }];
const AccountParams = z.object({ account_id: Uuid });
const KeyParams = z.object({ key_id: Uuid });

/** Operator API: present only when ADMIN_TOKEN is set (otherwise every /admin path is a 404). */
export const adminRoutes: FastifyPluginAsyncZod<GatewayDeps> = async (app, { accounts, limiter }) => {
  const config = { auth: ADMIN };

  app.post(
    '/admin/accounts',
    {
      config,
      schema: {
        operationId: operationId('admin.accounts.create'),
        tags: ['Admin'],
        summary: 'Create an account',
        description:
          'Plans: free (60 requests/min), pro (300/min), enterprise (rate_limit_per_minute required).',
        security,
        body: CreateAccountBody,
        bodyExample: REQUEST_EXAMPLES.createAccount,
        response: { 201: Envelope(Account).describe('The new account'), ...errorResponses(401, 415, 422) },
      },
    },
    async (request, reply) =>
      reply.code(201).send(envelope(request, await accounts.createAccount(request.body))),
  );

  app.get(
    '/admin/accounts',
    {
      config,
      schema: {
        operationId: operationId('admin.accounts.list'),
        tags: ['Admin'],
        summary: 'List accounts',
        security,
        querystring: PageQuery,
        response: {
          200: Envelope(Page(Account)).describe('A page of accounts'),
          ...errorResponses(401, 422),
        },
      },
    },
    async (request) => envelope(request, await accounts.listAccounts(request.query)),
  );

  app.get(
    '/admin/accounts/:account_id',
    {
      config,
      schema: {
        operationId: operationId('admin.accounts.get'),
        tags: ['Admin'],
        summary: 'Get an account',
        security,
        params: AccountParams,
        response: { 200: Envelope(Account).describe('The account'), ...errorResponses(401, 404, 422) },
      },
    },
    async (request) => envelope(request, await accounts.getAccount(request.params.account_id)),
  );

  app.post(
    '/admin/accounts/:account_id/api-keys',
    {
      config,
      schema: {
        operationId: operationId('admin.apiKeys.create'),
        tags: ['Admin'],
        summary: 'Create an API key',
        description: 'The key is in this response only; it is stored hashed. Omitted scopes = full access.',
        security,
        params: AccountParams,
        body: CreateApiKeyBody.default({}),
        bodyExample: REQUEST_EXAMPLES.createApiKey,
        response: {
          201: Envelope(CreatedApiKey).describe('The new key, with the key itself (shown this once)'),
          ...errorResponses(401, 404, 415, 422),
        },
      },
    },
    async (request, reply) =>
      reply
        .code(201)
        .send(envelope(request, await accounts.createKey(request.params.account_id, request.body))),
  );

  app.get(
    '/admin/accounts/:account_id/api-keys',
    {
      config,
      schema: {
        operationId: operationId('admin.apiKeys.list'),
        tags: ['Admin'],
        summary: "List an account's API keys (never the keys themselves)",
        security,
        params: AccountParams,
        querystring: PageQuery,
        response: {
          200: Envelope(Page(ApiKeyInfo)).describe('A page of the account\u2019s keys'),
          ...errorResponses(401, 404, 422),
        },
      },
    },
    async (request) => envelope(request, await accounts.listKeys(request.params.account_id, request.query)),
  );

  app.delete(
    '/admin/api-keys/:key_id',
    {
      config,
      schema: {
        operationId: operationId('admin.apiKeys.revoke'),
        tags: ['Admin'],
        summary: 'Revoke an API key',
        description: 'Takes effect at once on every gateway instance. Revoking twice is not an error.',
        security,
        params: KeyParams,
        response: { 204: z.undefined().describe('Revoked'), ...errorResponses(401, 404, 422) },
      },
    },
    async (request, reply) => {
      await accounts.revokeKey(request.params.key_id);
      // Every instance hears of it from PostgreSQL; this one need not wait for that.
      limiter.forgetKey(request.params.key_id.toLowerCase());
      return reply.code(204).send();
    },
  );
};
