import type { RecordingStore, Sql } from '@voice/shared';
import type { AccountStore } from './auth/account-store';
import type { CallLimitSync } from './auth/call-limits';
import type { KeySessions } from './auth/key-sessions';
import type { GatewayClient } from './clients/gateway-client';
import type { EventHub } from './live/event-hub';
import type { RateLimiter } from './rate-limit/limiter';
import type { RecordingLinks } from './recordings/links';

/** What the gateway's routes are given; built once by buildGateway. */
export interface GatewayDeps {
  client: GatewayClient;
  sql: Sql;
  accounts: AccountStore;
  /** Carries accounts' concurrent-call limits to the call service (which enforces them). */
  callLimits: CallLimitSync;
  /** Long-lived connections (graphql-ws sockets, tRPC SSE streams) by key: a revocation ends them. */
  sessions: KeySessions;
  limiter: RateLimiter;
  version: string;
  /** Signs recording links (shared with the webhook service through configuration). */
  recordingSecret: string;
  recordings: RecordingLinks;
  /** Finished recordings of real calls (files, or the JetStream object store shared by every gateway). */
  recordingStore: RecordingStore;
  /** Live events (call status, campaign progress) fanned out to GraphQL and tRPC subscribers. */
  live: EventHub;
}
