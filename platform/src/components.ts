import type { TelephonyProvider } from '@voice/call-service';
import type { Clock, MigrationSet, ServiceDeps, ServiceHandle, ServiceName } from '@voice/shared';
import type { RecordingStore } from '@voice/shared/recordings';

export const ROLES = ['all', 'gateway', 'agent', 'call', 'campaign', 'webhook', 'telephony'] as const;
export type Role = (typeof ROLES)[number];
export type Component = 'gateway' | ServiceName;

/** What the composition root may plug into the services in place of their defaults. */
export interface ServiceOptions {
  /** The telephone network the call service dials through (default: the simulated carrier). */
  callProvider?: TelephonyProvider | undefined;
  /** Where real calls' recordings are kept: the store every gateway serves them from. */
  recordingStore?: (() => Promise<RecordingStore>) | undefined;
  /** The time the campaign service judges calling windows and due contacts by (tests move it). */
  campaignClock?: Clock | undefined;
}

export interface ServiceComponent {
  migrations: MigrationSet;
  create: (deps: ServiceDeps, options: ServiceOptions) => ServiceHandle;
}

// Each service's code is loaded only by a process that runs it: a process of one role does not
// pay for loading (and holding) the gateway's GraphQL stack or the other services.
/** Every service the platform can run; the gateway is wired separately (it serves HTTP). */
export const SERVICES: Record<ServiceName, () => Promise<ServiceComponent>> = {
  agent: async () => {
    const { migrations, createAgentService } = await import('@voice/agent-service');
    return { migrations, create: createAgentService };
  },
  call: async () => {
    const { migrations, createCallService } = await import('@voice/call-service');
    return {
      migrations,
      create: (deps, { callProvider }) =>
        createCallService(deps, callProvider ? { provider: callProvider } : {}),
    };
  },
  campaign: async () => {
    const { migrations, createCampaignService } = await import('@voice/campaign-service');
    return {
      migrations,
      create: (deps, { campaignClock }) =>
        createCampaignService(deps, campaignClock ? { clock: campaignClock } : {}),
    };
  },
  webhook: async () => {
    const { migrations, createWebhookService } = await import('@voice/webhook-service');
    return { migrations, create: (deps) => createWebhookService(deps) };
  },
  telephony: async () => {
    const { migrations, createTelephonyService } = await import('@voice/telephony-service');
    return {
      migrations,
      create: (deps, { recordingStore }) =>
        createTelephonyService(deps, recordingStore ? { recordingStore } : {}),
    };
  },
};

/** The gateway's code, loaded by the processes that serve HTTP. */
export const loadGateway = () => import('@voice/gateway');

export function componentsOf(role: Role): Component[] {
  return role === 'all' ? ['gateway', 'agent', 'call', 'campaign', 'webhook', 'telephony'] : [role];
}
