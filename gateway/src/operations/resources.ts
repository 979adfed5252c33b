import { Uuid } from '@voice/shared';
import { z } from 'zod';
import { idFrom } from '../http/rpc-route';

/** The resource an operation acts on; its description is its GraphQL argument's. */
const byId = (what: string) => z.object({ id: Uuid.describe(`The ${what}\u2019s id`) });
export const ByAgent = byId('agent');
export const ByCall = byId('call');
export const ByCampaign = byId('campaign');
export const ByTrunk = byId('SIP trunk');

/** The bus requests' names for the resource. */
export const agentOf = ({ id }: { id: string }) => ({ agent_id: id });
export const campaignOf = ({ id }: { id: string }) => ({ campaign_id: id });
export const trunkOf = ({ id }: { id: string }) => ({ trunk_id: id });

/** REST paths name the resource by its kind; the operation's input names it `id`. */
export const AgentParams = z.object({ agent_id: Uuid });
export const CampaignParams = z.object({ campaign_id: Uuid });
export const TrunkParams = z.object({ trunk_id: Uuid });
export const byAgent = idFrom('agent_id');
export const byCampaign = idFrom('campaign_id');
export const byTrunk = idFrom('trunk_id');
