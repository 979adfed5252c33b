export { migrations } from './db/migrations';
export { createAgentService } from './service';
