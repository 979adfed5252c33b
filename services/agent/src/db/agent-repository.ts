import { type PageQuery, pageTotal, type Sql, type TransactionSql } from '@voice/shared';
import type { AgentRow, AgentRowVersion, PromptVersionRow } from './agent-rows';

type Db = Sql | TransactionSql;
/** What a create writes; the version counter starts at its column default. */
export type AgentFields = Omit<
  AgentRow,
  'account_id' | 'created_at' | 'updated_at' | 'next_prompt_version' | 'xmin'
>;

/** Every column of agent.agents, in the order reads select them (the benchmarks' reference servers run the same read). */
export const AGENT_COLUMNS = [
  'id',
  'account_id',
  'name',
  'agent_type',
  'industry',
  'language',
  'voice',
  'ai_model',
  'start_flow',
  'end_flow',
  'description',
  'prompt',
  'prompt_source',
  'active_prompt_version_id',
  'next_prompt_version',
  'webhook_url',
  'webhook_events',
  'webhook_secret',
  'created_at',
  'updated_at',
  'xmin',
] as const;

/** The agent schema's SQL, always scoped by account: another account's row is simply not found. */
export const agentRepository = {
  async insert(db: Db, accountId: string, fields: AgentFields): Promise<AgentRow> {
    const [row] = await db<AgentRow[]>`
      INSERT INTO agent.agents ${db({ ...fields, account_id: accountId })}
      RETURNING ${db(AGENT_COLUMNS)}`;
    return row!;
  },

  async find(
    db: Db,
    accountId: string,
    id: string,
    options: { lock?: boolean } = {},
  ): Promise<AgentRow | undefined> {
    const [row] = options.lock
      ? await db<AgentRow[]>`
          SELECT ${db(AGENT_COLUMNS)} FROM agent.agents WHERE id = ${id} AND account_id = ${accountId} FOR UPDATE`
      : await db<AgentRow[]>`
          SELECT ${db(AGENT_COLUMNS)} FROM agent.agents WHERE id = ${id} AND account_id = ${accountId}`;
    return row;
  },

  /** The version of the agent's row (AgentReplies), without its columns; undefined if absent. */
  async findVersion(db: Db, accountId: string, id: string): Promise<AgentRowVersion | undefined> {
    const [row] = await db<AgentRowVersion[]>`
      SELECT xmin, updated_at FROM agent.agents WHERE id = ${id} AND account_id = ${accountId}`;
    return row;
  },

  async findMany(db: Db, accountId: string, ids: readonly string[]): Promise<AgentRow[]> {
    return db<AgentRow[]>`
      SELECT ${db(AGENT_COLUMNS)} FROM agent.agents WHERE id = ANY(${ids as string[]}::uuid[]) AND account_id = ${accountId}`;
  },

  async page(db: Db, accountId: string, page: PageQuery): Promise<{ rows: AgentRow[]; total: number }> {
    const rows = await db<(AgentRow & { total: number })[]>`
      SELECT ${db(AGENT_COLUMNS)}, count(*) OVER ()::int AS total
      FROM agent.agents WHERE account_id = ${accountId}
      ORDER BY created_at DESC, id LIMIT ${page.page_size} OFFSET ${(page.page - 1) * page.page_size}`;
    const total = await pageTotal(
      rows,
      () => db<{ n: number }[]>`SELECT count(*)::int AS n FROM agent.agents WHERE account_id = ${accountId}`,
    );
    return { rows, total };
  },

  async update(
    db: Db,
    accountId: string,
    id: string,
    fields: Partial<AgentFields & Pick<AgentRow, 'next_prompt_version'>>,
  ): Promise<AgentRow> {
    const [row] = await db<AgentRow[]>`
      UPDATE agent.agents SET ${db({ ...fields, updated_at: new Date() })}
      WHERE id = ${id} AND account_id = ${accountId}
      RETURNING ${db(AGENT_COLUMNS)}`;
    return row!;
  },

  async delete(db: Db, accountId: string, id: string): Promise<boolean> {
    const rows =
      await db`DELETE FROM agent.agents WHERE id = ${id} AND account_id = ${accountId} RETURNING id`;
    return rows.length > 0;
  },
};

export type PromptVersionFields = Pick<
  PromptVersionRow,
  'id' | 'version' | 'label' | 'prompt' | 'prompt_source'
>;

export const promptVersionRepository = {
  /** The caller numbers the version (from the agent's counter, under the agent's row lock). */
  async insert(db: Db, accountId: string, agentId: string, fields: PromptVersionFields) {
    const [row] = await db<PromptVersionRow[]>`
      INSERT INTO agent.prompt_versions ${db({ ...fields, agent_id: agentId, account_id: accountId })}
      RETURNING *`;
    return row!;
  },

  async find(db: Db, accountId: string, agentId: string, id: string): Promise<PromptVersionRow | undefined> {
    const [row] = await db<PromptVersionRow[]>`
      SELECT * FROM agent.prompt_versions WHERE id = ${id} AND agent_id = ${agentId} AND account_id = ${accountId}`;
    return row;
  },

  async page(db: Db, accountId: string, agentId: string, page: PageQuery) {
    const rows = await db<(PromptVersionRow & { total: number })[]>`
      SELECT *, count(*) OVER ()::int AS total FROM agent.prompt_versions
      WHERE agent_id = ${agentId} AND account_id = ${accountId}
      ORDER BY version DESC LIMIT ${page.page_size} OFFSET ${(page.page - 1) * page.page_size}`;
    const total = await pageTotal(rows, () => this.count(db, accountId, agentId).then((n) => [{ n }]));
    return { rows, total };
  },

  async count(db: Db, accountId: string, agentId: string): Promise<number> {
    const [row] = await db<{ n: number }[]>`
      SELECT count(*)::int AS n FROM agent.prompt_versions WHERE agent_id = ${agentId} AND account_id = ${accountId}`;
    return row?.n ?? 0;
  },

  async delete(db: Db, accountId: string, agentId: string, id: string): Promise<boolean> {
    const rows = await db`
      DELETE FROM agent.prompt_versions WHERE id = ${id} AND agent_id = ${agentId} AND account_id = ${accountId}
      RETURNING id`;
    return rows.length > 0;
  },
};
