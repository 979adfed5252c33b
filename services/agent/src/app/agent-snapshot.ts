import { type AgentSnapshot, AppError } from '@voice/shared';
import { promptVersionRepository } from '../db/agent-repository';
import * as catalogue from '../domain/catalogue/index';
import { promptHash } from '../domain/prompt/index';
import type { AgentsApp } from './agents';

/** The copy of an agent a call keeps: who it is, what it tries to collect, the exact prompt it runs. */
export async function agentSnapshot(
  agents: AgentsApp,
  accountId: string,
  agentId: string,
): Promise<AgentSnapshot> {
  const row = await agents.require(agents.sql, accountId, agentId);
  const type = catalogue.findAgentType(row.agent_type);
  if (!type) throw new AppError('INTERNAL', `agent ${agentId} has a type the catalogue no longer has`);
  const active = row.active_prompt_version_id
    ? await promptVersionRepository.find(agents.sql, accountId, agentId, row.active_prompt_version_id)
    : undefined;
  return {
    id: row.id,
    name: row.name,
    agent_type: row.agent_type,
    industry: row.industry,
    goal: type.goal,
    collects: type.collects,
    language: row.language,
    voice: row.voice,
    ai_model: row.ai_model,
    start_flow: row.start_flow,
    end_flow: row.end_flow,
    prompt: row.prompt,
    prompt_hash: promptHash(row.prompt),
    prompt_version_id: active && active.prompt === row.prompt ? active.id : null,
  };
}
