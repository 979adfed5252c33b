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
  UpdateAccountBody,
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
export const adminRoutes: FastifyPluginAsyncZod<GatewayDeps> = async (
  app,
  { accounts, limiter, callLimits },
) => {
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
          'Plans: free (60 requests/min, 2 concurrent calls), pro (300/min, 20 calls), enterprise ' +
          '(rate_limit_per_minute required, 200 calls). max_concurrent_calls (1..10,000) overrides the ' +
          'plan’s number of calls dialed at once; calls over it wait in initializing.',
        security,
        body: CreateAccountBody,
        bodyExample: REQUEST_EXAMPLES.createAccount,
        response: { 201: Envelope(Account).describe('The new account'), ...errorResponses(401, 415, 422) },
      },
    },
    async (request, reply) => {
      const account = await accounts.createAccount(request.body);
      // Confirmed before the answer, so the account's first calls already have their limit; a call
      // service that did not answer gets it later (CallLimitSync retries).
      await callLimits.push(account.id);
      return reply.code(201).send(envelope(request, account));
    },
  );

  app.patch(
    '/admin/accounts/:account_id',
    {
      config,
      schema: {
        operationId: operationId('admin.accounts.update'),
        tags: ['Admin'],
        summary: 'Change an account',
        description:
          'Changes its plan, rate_limit_per_minute (enterprise only) or max_concurrent_calls (1..10,000; ' +
          'null = the plan’s default). A lower max_concurrent_calls lets calls in progress finish; new ' +
          'ones wait until the account is under it.',
        security,
        params: AccountParams,
        body: UpdateAccountBody,
        bodyExample: REQUEST_EXAMPLES.updateAccount,
        response: {
          200: Envelope(Account).describe('The account as changed'),
          ...errorResponses(401, 404, 415, 422),
        },
      },
    },
    async (request) => {
      const account = await accounts.updateAccount(request.params.account_id, request.body);
      await callLimits.push(account.id);
      return envelope(request, account);
    },
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
