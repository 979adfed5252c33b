import { migrations as agentMigrations, createAgentService } from '@voice/agent-service';
import { migrations as callMigrations, createCallService, type TelephonyProvider } from '@voice/call-service';
import { migrations as campaignMigrations, createCampaignService } from '@voice/campaign-service';
import { migrations as gatewayMigrations } from '@voice/gateway';
import type { Clock, MigrationSet, ServiceDeps, ServiceHandle, ServiceName } from '@voice/shared';
import type { RecordingStore } from '@voice/shared/recordings';
import { createTelephonyService, migrations as telephonyMigrations } from '@voice/telephony-service';
import { createWebhookService, migrations as webhookMigrations } from '@voice/webhook-service';

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

/** Every service the platform can run; the gateway is wired separately (it serves HTTP). */
export const SERVICES: Record<ServiceName, ServiceComponent> = {
  agent: { migrations: agentMigrations, create: createAgentService },
  call: {
    migrations: callMigrations,
    create: (deps, { callProvider }) =>
      createCallService(deps, callProvider ? { provider: callProvider } : {}),
  },
  campaign: {
    migrations: campaignMigrations,
    create: (deps, { campaignClock }) =>
      createCampaignService(deps, campaignClock ? { clock: campaignClock } : {}),
  },
  webhook: { migrations: webhookMigrations, create: (deps) => createWebhookService(deps) },
  telephony: {
    migrations: telephonyMigrations,
    create: (deps, { recordingStore }) =>
      createTelephonyService(deps, recordingStore ? { recordingStore } : {}),
  },
};

export const GATEWAY_MIGRATIONS = gatewayMigrations;

export const ALL_MIGRATIONS: MigrationSet[] = [
  gatewayMigrations,
  ...Object.values(SERVICES).map((s) => s.migrations),
];

export function componentsOf(role: Role): Component[] {
  return role === 'all' ? ['gateway', 'agent', 'call', 'campaign', 'webhook', 'telephony'] : [role];
}
