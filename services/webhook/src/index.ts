export { migrations } from './db/migrations';
export { createWebhookService } from './service';
