export { migrations } from './db/migrations';
export { createCampaignService } from './service';
