import { randomUUID } from 'node:crypto';
import { newCallRow } from '../../src/db/call-repository';
import type { CallRow } from '../../src/db/call-rows';

/** A new call's row as CallsApp.place builds it (simulated carrier, queued, not dialed). */
export function testCallRow(options: {
  accountId: string;
  owner: string;
  id?: string;
  agentId?: string;
  metadata?: Record<string, unknown> | null;
}): CallRow {
  const now = new Date();
  const agentId = options.agentId ?? randomUUID();
  return newCallRow(
    options.accountId,
    {
      id: options.id ?? randomUUID(),
      agent_id: agentId,
      agent_snapshot: {
        id: agentId,
        name: 'Riley',
        agent_type: 'real_estate_lead_qualifier',
        industry: null,
        goal: 'Qualify the lead',
        collects: [],
        language: 'en',
        voice: 'alloy',
        ai_model: 'gpt-4o',
        start_flow: 'Hi',
        end_flow: 'Bye',
        prompt_hash: 'hash',
        prompt_version_id: null,
      },
      campaign_id: null,
      phone_number: '+14155550123',
      source_number: '+14155550100',
      metadata: options.metadata ?? null,
      started_at: now,
      prompt_version_id: null,
      prompt_hash: 'hash',
      owner: options.owner,
      carrier: 'simulated',
      trunk_id: null,
    },
    now,
  );
}
