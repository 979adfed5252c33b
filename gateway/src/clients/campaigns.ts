import { randomUUID } from 'node:crypto';
import {
  CAMPAIGN,
  type CallContext,
  type Campaign,
  type ContactRow,
  type ContactsAdded,
  type CreateCampaignBody,
} from '@voice/shared';
import type { GatewayClient } from './gateway-client';

/** Well under NATS's default 1 MiB message limit, with room for the envelope. */
export const CONTACT_CHUNK_BYTES = 256 * 1024;
/**
 * How long the commit of an addition may take: one transaction moving up to CONTACTS_MAX contacts
 * into the campaign (about a second at 100,000 on an idle machine, several on a loaded one), well
 * past the bus's default timeout.
 */
const COMMIT_TIMEOUT_MS = 30_000;
/** Chunks in flight at once during one create. */
const UPLOAD_CONCURRENCY = 4;

export interface ContactChunk {
  offset: number;
  contacts: ContactRow[];
}

/**
 * Consecutive chunks whose contacts, serialized as a JSON array, take at most `maxBytes` of UTF-8
 * (a contact larger than that alone makes a chunk of its own).
 */
export function contactChunks(
  contacts: readonly ContactRow[],
  maxBytes = CONTACT_CHUNK_BYTES,
): ContactChunk[] {
  const chunks: ContactChunk[] = [];
  let current: ContactChunk = { offset: 0, contacts: [] };
  // "[" so far; each contact then adds itself and a "," or the closing "]".
  let bytes = 1;
  contacts.forEach((contact, position) => {
    const size = Buffer.byteLength(JSON.stringify(contact)) + 1;
    if (current.contacts.length > 0 && bytes + size > maxBytes) {
      chunks.push(current);
      current = { offset: position, contacts: [] };
      bytes = 1;
    }
    current.contacts.push(contact);
    bytes += size;
  });
  if (current.contacts.length > 0) chunks.push(current);
  return chunks;
}

/**
 * Creates a campaign whatever the size of its contact list, with no bus message over
 * CONTACT_CHUNK_BYTES of contacts and no step whose work grows with the list: a draft first (its
 * agent checked), then the contacts in chunks, then start, which answers the campaign once it has
 * checked they all arrived and taken the first bounded step of its preparation: scheduled or
 * running, or `preparing` for a long list (the campaign service finishes it in the background;
 * GET and the progress events show it move on). A create that fails midway discards its draft
 * (never listed; swept later should even the discard fail) and answers the error.
 */
export async function createCampaign(
  client: GatewayClient,
  body: CreateCampaignBody,
  ctx: CallContext,
): Promise<Campaign> {
  const { contacts, ...settings } = body;
  const { campaign_id } = await client.call(CAMPAIGN.create, settings, ctx);
  try {
    await uploadChunks(contacts, (chunk) =>
      client.call(CAMPAIGN.addContacts, { campaign_id, ...chunk }, ctx),
    );
    return await client.call(CAMPAIGN.start, { campaign_id, total: contacts.length }, ctx);
  } catch (error) {
    // Discard deletes a draft only: a start that got through after all is left as it is.
    await client.call(CAMPAIGN.discard, { campaign_id }, ctx).catch(() => undefined);
    throw error;
  }
}

/**
 * Adds contacts to a campaign that has started, whatever their number, as a create uploads them:
 * chunks held apart by the campaign service under one addition id, then a commit that moves the
 * whole addition into the campaign at once (checking it would not pass the contact limit), so a
 * failure midway adds nothing. A failed addition is discarded (else swept later); the discard waits
 * for a commit still running (a timeout here), so an addition lands whole or not at all.
 */
export async function addContacts(
  client: GatewayClient,
  campaignId: string,
  contacts: readonly ContactRow[],
  ctx: CallContext,
): Promise<ContactsAdded> {
  const ids = { campaign_id: campaignId, addition_id: randomUUID() };
  try {
    await uploadChunks(contacts, (chunk) => client.call(CAMPAIGN.stageContacts, { ...ids, ...chunk }, ctx));
    return await client.call(CAMPAIGN.commitContacts, { ...ids, total: contacts.length }, ctx, {
      timeoutMs: COMMIT_TIMEOUT_MS,
    });
  } catch (error) {
    await client.call(CAMPAIGN.discardContacts, ids, ctx).catch(() => undefined);
    throw error;
  }
}

/**
 * The chunks, UPLOAD_CONCURRENCY at a time, each sent by `send`. On a failure no further chunk is
 * sent, and this settles only once the chunks in flight have (so a discard that follows finds none
 * arriving).
 */
async function uploadChunks(
  contacts: readonly ContactRow[],
  send: (chunk: ContactChunk) => Promise<unknown>,
): Promise<void> {
  const chunks = contactChunks(contacts);
  let next = 0;
  let failure: { error: unknown } | undefined;
  const upload = async () => {
    while (next < chunks.length && !failure) {
      const chunk = chunks[next++]!;
      await send(chunk).catch((error: unknown) => {
        failure ??= { error };
      });
    }
  };
  await Promise.all(Array.from({ length: Math.min(UPLOAD_CONCURRENCY, chunks.length) }, upload));
  if (failure) throw failure.error;
}
