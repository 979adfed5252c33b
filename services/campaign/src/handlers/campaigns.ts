import { CAMPAIGN, requireAccount, type ServiceDeps, type Subscription, serveRpc } from '@voice/shared';
import type { CampaignsApp } from '../app/campaigns';

/** Campaign operations over the bus: decode, call the use case for the caller's account, encode. */
export function serveCampaigns(deps: ServiceDeps, campaigns: CampaignsApp): Subscription[] {
  const options = { queue: 'campaign', log: deps.log };
  return [
    serveRpc(deps.bus, CAMPAIGN.create, (settings, ctx) => campaigns.createDraft(ctx, settings), options),
    serveRpc(
      deps.bus,
      CAMPAIGN.addContacts,
      (request, ctx) => campaigns.addContacts(requireAccount(ctx), request),
      options,
    ),
    serveRpc(
      deps.bus,
      CAMPAIGN.start,
      ({ campaign_id, total }, ctx) => campaigns.start(requireAccount(ctx), campaign_id, total),
      options,
    ),
    serveRpc(
      deps.bus,
      CAMPAIGN.discard,
      ({ campaign_id }, ctx) => campaigns.discard(requireAccount(ctx), campaign_id),
      options,
    ),
    serveRpc(
      deps.bus,
      CAMPAIGN.get,
      ({ campaign_id }, ctx) => campaigns.get(requireAccount(ctx), campaign_id),
      options,
    ),
    serveRpc(
      deps.bus,
      CAMPAIGN.list,
      ({ status, page, page_size }, ctx) => campaigns.list(requireAccount(ctx), status, { page, page_size }),
      options,
    ),
    ...(['pause', 'resume', 'cancel'] as const).map((operation) =>
      serveRpc(
        deps.bus,
        CAMPAIGN[operation],
        ({ campaign_id }, ctx) => campaigns.operate(requireAccount(ctx), campaign_id, operation),
        options,
      ),
    ),
    serveRpc(
      deps.bus,
      CAMPAIGN.listContacts,
      ({ campaign_id, status, page, page_size }, ctx) =>
        campaigns.listContacts(requireAccount(ctx), campaign_id, status, { page, page_size }),
      options,
    ),
  ];
}
