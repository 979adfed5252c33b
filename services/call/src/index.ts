export { migrations } from './db/migrations';
export { createCallService } from './service';
