import type { z } from 'zod';
import type { CreateAccountBody, CreateApiKeyBody, UpdateAccountBody } from './account';
import type { CreateAgentBody, SaveInstructionsBody, SavePromptVersionBody, UpdateAgentBody } from './agent';
import type { MakeCallBody } from './call';
import type { AddContactsBody, CreateCampaignBody, UpdateCampaignBody } from './campaign';
import type { CreateSipTrunkBody, UpdateSipTrunkBody } from './sip-trunks';
import type { BulkRedeliverBody, CallEndedPayload } from './webhook';

/**
 * Ids the request examples use. They name nothing: a real request needs the id of a resource of
 * the caller's account (Swagger UI's "Try it out" sends them as they are, answered 404).
 */
export const EXAMPLE_IDS = { agent: '3fa85f64-5717-4562-b3fc-2c963f66afa6' } as const;

/**
 * One request body per operation that takes one: the OpenAPI document shows each as its request
 * body's example, and a test sends each to a running platform (ids replaced by real ones) and
 * expects a 2xx. Typed by the contracts, so a changed contract fails to compile here first.
 */
export const REQUEST_EXAMPLES = {
  createAgent: {
    name: 'Riley',
    agent_type: 'real_estate_lead_qualifier',
    language: 'en',
    description: 'Qualifies buyers who asked about a listing',
    start_flow: 'Hi, this is Riley from Acme Realty. Is now a good time to talk about your home search?',
    end_flow: 'Thanks for your time, goodbye!',
  } satisfies z.input<typeof CreateAgentBody>,
  updateAgent: {
    description: 'Qualifies buyers and renters who asked about a listing',
    webhook_config: {
      url: 'https://example.com/hooks/voice',
      events: ['CALL_ENDED'],
      secret: 'replace-with-32-or-more-random-characters',
    },
  } satisfies z.input<typeof UpdateAgentBody>,
  saveInstructions: {
    instructions:
      'You are Riley, a friendly assistant for Acme Realty. Ask about budget, preferred area and move-in date, ' +
      'one question at a time, and offer a viewing when the caller is interested.',
  } satisfies z.input<typeof SaveInstructionsBody>,
  savePromptVersion: { label: 'Before the spring campaign' } satisfies z.input<typeof SavePromptVersionBody>,
  makeCall: {
    agent_id: EXAMPLE_IDS.agent,
    source_number: '+14155550100',
    phone_number: '+14155551234',
    metadata: { name: 'Jordan', crm_id: 'lead-4821' },
  } satisfies z.input<typeof MakeCallBody>,
  createCampaign: {
    name: 'Spring open house follow-up',
    agent_id: EXAMPLE_IDS.agent,
    phone_number: '+14155550100',
    max_concurrent_calls: 2,
    retry_config: { on_statuses: ['no_answer', 'busy'], max_retries: 1, interval_seconds: 600 },
    calling_window: { days: ['mon', 'tue', 'wed', 'thu', 'fri'], start: '09:00', end: '20:00' },
    contacts: [
      { phone: '+14155551234', name: 'Jordan', listing: '12 Oak St' },
      { phone: '+12125552345', name: 'Sam', listing: '7 Elm Ave', timezone: 'America/New_York' },
    ],
  } satisfies z.input<typeof CreateCampaignBody>,
  updateCampaign: {
    name: 'Spring open house follow-up (evenings)',
    max_concurrent_calls: 5,
    retry_config: { on_statuses: ['no_answer'], max_retries: 2, interval_seconds: 1800 },
  } satisfies z.input<typeof UpdateCampaignBody>,
  addCampaignContacts: {
    contacts: [
      { phone: '+14155553456', name: 'Alex', listing: '3 Pine Ct' },
      { phone: '+14155554567', name: 'Robin', listing: '12 Oak St' },
    ],
  } satisfies z.input<typeof AddContactsBody>,
  bulkRedeliver: {
    from: '2026-11-01T00:00:00Z',
    to: '2026-11-08T00:00:00Z',
  } satisfies z.input<typeof BulkRedeliverBody>,
  createSipTrunk: {
    name: 'Main carrier',
    uri: 'sip:sip.carrier.example.com:5060;transport=udp',
    username: 'acme-realty',
    password: 'replace-with-the-trunk-password',
    numbers: ['+14155550100'],
    is_default: true,
    max_concurrent_calls: 20,
    calls_per_second: 5,
    ring_timeout_seconds: 30,
    codecs: ['PCMU', 'PCMA'],
  } satisfies z.input<typeof CreateSipTrunkBody>,
  updateSipTrunk: {
    numbers: ['+14155550100', '+14155550101'],
    max_concurrent_calls: 40,
  } satisfies z.input<typeof UpdateSipTrunkBody>,
  createAccount: { name: 'Acme Realty', plan: 'pro' } satisfies z.input<typeof CreateAccountBody>,
  updateAccount: { max_concurrent_calls: 50 } satisfies z.input<typeof UpdateAccountBody>,
  createApiKey: {
    name: 'CRM integration',
    scopes: ['agents:read', 'calls:read', 'calls:write'],
  } satisfies z.output<typeof CreateApiKeyBody>,
};

/** A CALL_ENDED delivery's body, as the OpenAPI document's `webhooks` section shows it. */
export const CALL_ENDED_EXAMPLE = {
  event: 'CALL_ENDED',
  timestamp: '2026-11-24T23:21:05.120Z',
  data: {
    session_id: 'b3845609-f754-47d6-aca6-32e929088ab4',
    phone_number: '+14155551234',
    direction: 'outbound',
    status: 'completed',
    duration_seconds: 47,
    duration_minutes: 0.78,
    started_at: '2026-11-24T23:20:12.004Z',
    ended_at: '2026-11-24T23:21:04.981Z',
    agent_id: EXAMPLE_IDS.agent,
    agent_type: 'real_estate_lead_qualifier',
    sentiment: 'positive',
    call_summary:
      'Jordan is looking for a three-bedroom house near downtown and booked a viewing for Saturday.',
    call_end_reason: 'conversation_completed',
    ended_by: 'agent',
    details_collection: {
      status: 'complete',
      score: 1,
      collected_details: ['budget', 'preferred_area', 'move_in_date'],
      collected_values: { budget: '650000', preferred_area: 'downtown', move_in_date: '2027-02' },
    },
    transcript: [
      { role: 'agent', content: 'Hi, this is Riley from Acme Realty.', timestamp: '23:20:17' },
      { role: 'user', content: 'Hi, yes, this is a good time.', timestamp: '23:20:21' },
    ],
    recording_url:
      'https://voice.example.com/v1/recordings/b3845609-f754-47d6-aca6-32e929088ab4.wav?expires=1795648865&signature=' +
      '9f2c1e0d8b7a6f5e4d3c2b1a09f8e7d6c5b4a39281706f5e4d3c2b1a0f9e8d7c',
    metadata: { name: 'Jordan', crm_id: 'lead-4821' },
    ai_cost: 0.047,
    telephony_cost: 0.011,
    total_cost: 0.058,
    telephony: { carrier: 'simulated', trunk_id: null, sip_code: 200, sip_reason: 'OK' },
    opted_out: false,
  },
} satisfies CallEndedPayload;
