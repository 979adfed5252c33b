import { randomUUID } from 'node:crypto';
import { AppError, type PageOf, type PageQuery, type PromptVersion, toPage } from '@voice/shared';
import { agentRepository, promptVersionRepository } from '../db/agent-repository';
import { toAgent, toPromptVersion } from '../db/agent-rows';
import type { AgentsApp } from './agents';

export interface AgentPromptView {
  agent_id: string;
  prompt: string;
  prompt_source: 'generated' | 'custom';
  active_prompt_version_id: string | null;
}

/**
 * The current prompt and its immutable snapshots. Every write locks the agent row first, so
 * concurrent saves number versions without clashes, and a number is never given twice.
 */
export class PromptsApp {
  constructor(private readonly agents: AgentsApp) {}

  async getPrompt(accountId: string, agentId: string): Promise<AgentPromptView> {
    const row = await this.agents.require(this.sqlOf(), accountId, agentId);
    return {
      agent_id: row.id,
      prompt: row.prompt,
      prompt_source: row.prompt_source,
      active_prompt_version_id: row.active_prompt_version_id,
    };
  }

  /** Instructions written by the user become the prompt (and stop following generated changes). */
  async saveInstructions(accountId: string, agentId: string, instructions: string): Promise<AgentPromptView> {
    return this.agents.inTransaction(async (tx) => {
      await this.agents.require(tx, accountId, agentId, { lock: true });
      const row = await agentRepository.update(tx, accountId, agentId, {
        prompt: instructions,
        prompt_source: 'custom',
      });
      return {
        agent_id: row.id,
        prompt: row.prompt,
        prompt_source: row.prompt_source,
        active_prompt_version_id: row.active_prompt_version_id,
      };
    });
  }

  async list(accountId: string, agentId: string, page: PageQuery): Promise<PageOf<PromptVersion>> {
    const agent = await this.agents.require(this.sqlOf(), accountId, agentId);
    const { rows, extent } = await promptVersionRepository.page(this.sqlOf(), accountId, agentId, page);
    return toPage(
      rows.map((row) => toPromptVersion(row, agent.active_prompt_version_id)),
      extent,
      page,
    );
  }

  /**
   * Snapshots the current prompt (and whether it is generated or custom) and makes that snapshot the
   * active version. The number comes from the agent's counter, read and bumped under its row lock.
   */
  async save(accountId: string, agentId: string, label: string | undefined): Promise<PromptVersion> {
    return this.agents.inTransaction(async (tx) => {
      const agent = await this.agents.require(tx, accountId, agentId, { lock: true });
      const version = await promptVersionRepository.insert(tx, accountId, agentId, {
        id: randomUUID(),
        version: agent.next_prompt_version,
        label: label ?? null,
        prompt: agent.prompt,
        prompt_source: agent.prompt_source,
      });
      await agentRepository.update(tx, accountId, agentId, {
        active_prompt_version_id: version.id,
        next_prompt_version: agent.next_prompt_version + 1,
      });
      return toPromptVersion(version, version.id);
    });
  }

  /**
   * With no active version (none saved yet, or none since the active one was cleared) the current
   * prompt counts as differing: it is not saved anywhere.
   */
  async status(accountId: string, agentId: string) {
    const sql = this.sqlOf();
    const agent = await this.agents.require(sql, accountId, agentId);
    const active = agent.active_prompt_version_id
      ? await promptVersionRepository.find(sql, accountId, agentId, agent.active_prompt_version_id)
      : undefined;
    return {
      agent_id: agent.id,
      active_version_id: active?.id ?? null,
      current_differs_from_active: active ? active.prompt !== agent.prompt : true,
      count: await promptVersionRepository.count(sql, accountId, agentId),
    };
  }

  /**
   * Makes a version's prompt current and active, with the source it had when saved. A restored
   * custom prompt stays pinned; a restored generated one stays as restored until one of its inputs
   * changes, which regenerates it (see decidePrompt).
   */
  async restore(accountId: string, agentId: string, versionId: string) {
    return this.agents.inTransaction(async (tx) => {
      await this.agents.require(tx, accountId, agentId, { lock: true });
      const version = await promptVersionRepository.find(tx, accountId, agentId, versionId);
      if (!version) throw new AppError('PROMPT_VERSION_NOT_FOUND');
      const row = await agentRepository.update(tx, accountId, agentId, {
        prompt: version.prompt,
        prompt_source: version.prompt_source,
        active_prompt_version_id: version.id,
      });
      return toAgent(row);
    });
  }

  async delete(accountId: string, agentId: string, versionId: string): Promise<{ deleted: true }> {
    return this.agents.inTransaction(async (tx) => {
      const agent = await this.agents.require(tx, accountId, agentId, { lock: true });
      if (agent.active_prompt_version_id === versionId) {
        throw new AppError(
          'INVALID_STATE',
          'The active prompt version cannot be deleted; save or restore another first',
        );
      }
      if (!(await promptVersionRepository.delete(tx, accountId, agentId, versionId))) {
        throw new AppError('PROMPT_VERSION_NOT_FOUND');
      }
      return { deleted: true as const };
    });
  }

  private sqlOf() {
    return this.agents.sql;
  }
}
