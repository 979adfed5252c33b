import { CAMPAIGN, rpcServer, type ServiceDeps, type Subscription } from '@voice/shared';
import type { CampaignsApp } from '../app/campaigns';
import type { CampaignControl } from '../app/control';
import type { CampaignValidator } from '../app/validation';

/** Campaign operations over the bus: decode, call the use case for the caller's account, encode. */
export function serveCampaigns(
  deps: ServiceDeps,
  campaigns: CampaignsApp,
  control: CampaignControl,
  validator: CampaignValidator,
): Subscription[] {
  const rpc = rpcServer(deps.bus, { queue: 'campaign', log: deps.log });
  return [
    // The whole context: creating a draft calls the agent service on the caller's behalf.
    rpc.serve(CAMPAIGN.create, (settings, ctx) => campaigns.createDraft(ctx, settings)),
    rpc.forAccount(CAMPAIGN.addContacts, (request, accountId) => campaigns.addContacts(accountId, request)),
    rpc.forAccount(CAMPAIGN.start, ({ campaign_id, total }, accountId) =>
      campaigns.start(accountId, campaign_id, total),
    ),
    rpc.forAccount(CAMPAIGN.discard, ({ campaign_id }, accountId) =>
      campaigns.discard(accountId, campaign_id),
    ),
    rpc.forAccount(CAMPAIGN.get, ({ campaign_id }, accountId) => campaigns.get(accountId, campaign_id)),
    rpc.forAccount(CAMPAIGN.list, ({ status, ...page }, accountId) =>
      campaigns.list(accountId, status, page),
    ),
    ...(['pause', 'resume', 'cancel'] as const).map((operation) =>
      rpc.forAccount(CAMPAIGN[operation], ({ campaign_id }, accountId) =>
        campaigns.operate(accountId, campaign_id, operation),
      ),
    ),
    rpc.forAccount(CAMPAIGN.update, ({ campaign_id, changes }, accountId) =>
      control.update(accountId, campaign_id, changes),
    ),
    rpc.forAccount(CAMPAIGN.stageContacts, (request, accountId) => control.stageContacts(accountId, request)),
    rpc.forAccount(CAMPAIGN.commitContacts, (request, accountId) =>
      control.commitContacts(accountId, request),
    ),
    rpc.forAccount(CAMPAIGN.discardContacts, (request, accountId) =>
      control.discardContacts(accountId, request),
    ),
    rpc.forAccount(CAMPAIGN.listContacts, ({ campaign_id, status, ...page }, accountId) =>
      campaigns.listContacts(accountId, campaign_id, status, page),
    ),
    // The whole context: the dry run asks the agent and call services on the caller's behalf.
    rpc.serve(CAMPAIGN.validate, (request, ctx) => validator.validate(ctx, request)),
  ];
}
