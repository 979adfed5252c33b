import { randomUUID } from 'node:crypto';
import {
  type Agent,
  AppError,
  type CheckAgentSettingsRequest,
  type CreateAgentBody,
  type PageOf,
  type PageQuery,
  type Sql,
  type TransactionSql,
  toPage,
  type UpdateAgentBody,
  type ValidationIssue,
} from '@voice/shared';
import { agentRepository } from '../db/agent-repository';
import { type AgentRow, type AgentRowVersion, toAgent } from '../db/agent-rows';
import { decidePrompt } from '../domain/agent-prompt';
import {
  type ResolvedSettings,
  resolveSettings,
  type SettingsResult,
  settingsIssues,
} from '../domain/agent-settings';
import {
  applyWebhookChange,
  checkUrl,
  checkWebhookChange,
  NO_WEBHOOK,
  type WebhookChange,
  type WebhookFields,
} from './webhook-settings';

export interface AgentsOptions {
  sql: Sql;
  allowPrivateWebhooks: boolean;
}

function settingsOf(row: AgentRow): ResolvedSettings {
  return {
    agent_type: row.agent_type,
    industry: row.industry,
    language: row.language,
    voice: row.voice,
    ai_model: row.ai_model,
  };
}

/** Both checks, every problem of both reported in one 422. */
function validOrThrow(
  settings: SettingsResult,
  webhook: WebhookChange,
): { settings: ResolvedSettings; webhook: Exclude<WebhookChange, { kind: 'invalid' }> } {
  if (settings.ok && webhook.kind !== 'invalid') return { settings: settings.settings, webhook };
  const issues: ValidationIssue[] = [
    ...(settings.ok ? [] : settings.issues),
    ...(webhook.kind === 'invalid' ? webhook.issues : []),
  ];
  throw AppError.validation(issues);
}

function webhookOf(row: AgentRow): WebhookFields {
  return {
    webhook_url: row.webhook_url,
    webhook_events: row.webhook_events,
    webhook_secret: row.webhook_secret,
  };
}

/** Agents of one account: every read and write is scoped by the caller's account. */
export class AgentsApp {
  constructor(private readonly options: AgentsOptions) {}

  get sql(): Sql {
    return this.options.sql;
  }

  async create(accountId: string, body: CreateAgentBody): Promise<Agent> {
    const { settings, webhook } = validOrThrow(
      resolveSettings(body),
      await checkWebhookChange(body.webhook_config, this.options.allowPrivateWebhooks),
    );
    const description = body.description ?? null;
    const inputs = {
      ...settings,
      name: body.name,
      description,
      start_flow: body.start_flow,
      end_flow: body.end_flow,
    };
    const prompt = decidePrompt(body.prompt, undefined, inputs);
    const row = await agentRepository.insert(this.options.sql, accountId, {
      id: randomUUID(),
      name: body.name,
      ...settings,
      start_flow: body.start_flow,
      end_flow: body.end_flow,
      description,
      ...prompt,
      active_prompt_version_id: null,
      ...applyWebhookChange(webhook, NO_WEBHOOK),
    });
    return toAgent(row);
  }

  async list(accountId: string, page: PageQuery): Promise<PageOf<Agent>> {
    const { rows, extent } = await agentRepository.page(this.options.sql, accountId, page);
    return toPage(rows.map(toAgent), extent, page);
  }

  async get(accountId: string, agentId: string): Promise<Agent> {
    return toAgent(await this.getRow(accountId, agentId));
  }

  /** The agent's row as stored now (for a reply kept per row version, AgentReplies). */
  getRow(accountId: string, agentId: string): Promise<AgentRow> {
    return this.require(this.options.sql, accountId, agentId);
  }

  /** The version of the agent's row as stored now, without reading the agent; AGENT_NOT_FOUND if absent. */
  async getVersion(accountId: string, agentId: string): Promise<AgentRowVersion> {
    const version = await agentRepository.findVersion(this.options.sql, accountId, agentId);
    if (!version) throw new AppError('AGENT_NOT_FOUND');
    return version;
  }

  /** The account's agents among `agentIds`; ids of missing (or other accounts') agents are left out. */
  async getMany(accountId: string, agentIds: readonly string[]): Promise<Agent[]> {
    const rows = await agentRepository.findMany(this.options.sql, accountId, [...new Set(agentIds)]);
    return rows.map(toAgent);
  }

  /** Partial: omitted fields keep their value; a generated prompt follows the fields it is made from. */
  async update(accountId: string, agentId: string, changes: UpdateAgentBody): Promise<Agent> {
    const webhookChange = await checkWebhookChange(changes.webhook_config, this.options.allowPrivateWebhooks);
    return this.inTransaction(async (tx) => {
      const row = await this.require(tx, accountId, agentId, { lock: true });
      const { settings, webhook } = validOrThrow(resolveSettings(changes, settingsOf(row)), webhookChange);
      const next = {
        name: changes.name ?? row.name,
        start_flow: changes.start_flow ?? row.start_flow,
        end_flow: changes.end_flow ?? row.end_flow,
        description: changes.description === undefined ? row.description : changes.description,
      };
      const current = { prompt: row.prompt, prompt_source: row.prompt_source, inputs: row };
      const prompt = decidePrompt(changes.prompt, current, { ...settings, ...next });
      const fields = { ...next, ...settings, ...prompt, ...applyWebhookChange(webhook, webhookOf(row)) };
      return toAgent(await agentRepository.update(tx, accountId, agentId, fields));
    });
  }

  /**
   * The catalogue and webhook address problems of a body that failed its schema, so the gateway can
   * answer one 422 with every problem. Nothing is read or written.
   */
  async checkSettings(request: CheckAgentSettingsRequest): Promise<ValidationIssue[]> {
    const { mode, webhook_url, ...requested } = request;
    const issues = settingsIssues(requested, mode);
    if (webhook_url !== undefined) {
      const checked = await checkUrl(webhook_url, this.options.allowPrivateWebhooks);
      if (!checked.ok) issues.push(checked.issue);
    }
    return issues;
  }

  /** The agent's calls keep their history: they live in the call service with their own copy. */
  async delete(accountId: string, agentId: string): Promise<{ deleted: true }> {
    if (!(await agentRepository.delete(this.options.sql, accountId, agentId)))
      throw new AppError('AGENT_NOT_FOUND');
    return { deleted: true };
  }

  async require(
    db: Sql | TransactionSql,
    accountId: string,
    agentId: string,
    options: { lock?: boolean } = {},
  ): Promise<AgentRow> {
    const row = await agentRepository.find(db, accountId, agentId, options);
    if (!row) throw new AppError('AGENT_NOT_FOUND');
    return row;
  }

  inTransaction<T>(work: (tx: TransactionSql) => Promise<T>): Promise<T> {
    return this.options.sql.begin((tx) => work(tx)) as Promise<T>;
  }
}
