export { migrations } from './db/migrations';
export { type CampaignServiceOptions, createCampaignService } from './service';
