export { AGENT_COLUMNS } from './db/agent-repository';
export { migrations } from './db/migrations';
export { createAgentService } from './service';
