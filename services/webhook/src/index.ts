export { WebhookSender } from './app/sender';
export { migrations } from './db/migrations';
export { callEndedPayload } from './domain/payload';
export { decideAfterAttempt } from './domain/policy';
export { signBody, signTimestamped } from './domain/signature';
export { createWebhookService, type WebhookServiceOptions } from './service';
