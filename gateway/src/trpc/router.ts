import { mutation, query, router } from './init';
import { onProgress, onStatus } from './subscriptions';

/**
 * The tRPC API at /trpc: every procedure is one operation of gateway/src/operations/catalogue.ts
 * (inputs in REST's snake_case shapes, one resource named `id`; outputs REST's `data`), reads as
 * queries and writes as mutations, plus the two live subscriptions over SSE.
 */
export const appRouter = router({
  discovery: {
    industries: query('discovery.industries'),
    agentTypes: query('discovery.agentTypes'),
    voices: query('discovery.voices'),
    languages: query('discovery.languages'),
    aiModels: query('discovery.aiModels'),
  },
  me: query('me'),
  agents: {
    list: query('agents.list'),
    get: query('agents.get'),
    create: mutation('agents.create'),
    update: mutation('agents.update'),
    delete: mutation('agents.delete'),
    prompt: query('agents.prompt'),
    saveInstructions: mutation('agents.saveInstructions'),
    webhookDeliveries: query('agents.webhookDeliveries'),
    versions: {
      list: query('agents.versions.list'),
      save: mutation('agents.versions.save'),
      status: query('agents.versions.status'),
      restore: mutation('agents.versions.restore'),
      delete: mutation('agents.versions.delete'),
    },
  },
  webhooks: {
    redeliver: mutation('webhooks.redeliver'),
    redeliverFailed: mutation('webhooks.redeliverFailed'),
    sendTest: mutation('webhooks.sendTest'),
  },
  calls: {
    create: mutation('calls.create'),
    list: query('calls.list'),
    get: query('calls.get'),
    onStatus,
  },
  campaigns: {
    create: mutation('campaigns.create'),
    list: query('campaigns.list'),
    get: query('campaigns.get'),
    pause: mutation('campaigns.pause'),
    resume: mutation('campaigns.resume'),
    cancel: mutation('campaigns.cancel'),
    contacts: query('campaigns.contacts'),
    onProgress,
  },
});

export type AppRouter = typeof appRouter;
