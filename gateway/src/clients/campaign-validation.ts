import { randomUUID } from 'node:crypto';
import {
  CAMPAIGN,
  type CallContext,
  type CampaignValidation,
  type CreateCampaignBody,
  contextFromHeaders,
  EncodedJson,
  VALIDATION_SOURCE_PREFIX,
} from '@voice/shared';
import type { GatewayClient } from './gateway-client';

/** Long enough for the campaign service to fetch 100,000 contacts, check and estimate them. */
const VALIDATE_TIMEOUT_MS = 60_000;

/**
 * A dry run of a create: the campaign service computes everything; the gateway only lends it the
 * contacts. They cannot travel in the request (a 16 MiB list would outgrow a bus message), so the
 * gateway answers them, for this request's lifetime, on a subject of its own that the service
 * asks once (the bus sends a large reply in parts). The body was validated at the edge already,
 * so the contacts are sent as they are, not checked again.
 */
export async function validateCampaign(
  client: GatewayClient,
  body: CreateCampaignBody,
  ctx: CallContext,
): Promise<CampaignValidation> {
  const { contacts, ...settings } = body;
  const source = `${VALIDATION_SOURCE_PREFIX}.${randomUUID().replaceAll('-', '')}`;
  // Answers validationSource(source); not through serveRpc, as the reply is the edge-validated body.
  const subscription = client.bus.respond(
    source,
    async (msg) => {
      // Only the account this request acts for may read its contacts.
      if (contextFromHeaders(msg.headers).accountId !== ctx.accountId) {
        throw new Error('validation source asked for another account');
      }
      return new EncodedJson(JSON.stringify({ contacts }));
    },
    { queue: 'gateway' },
  );
  try {
    return await client.call(CAMPAIGN.validate, { settings, source, total: contacts.length }, ctx, {
      timeoutMs: VALIDATE_TIMEOUT_MS,
    });
  } finally {
    await subscription.unsubscribe();
  }
}
