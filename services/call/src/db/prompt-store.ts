import type { Sql } from '@voice/shared';

/** Hashes this instance knows are stored, at most this many (a campaign reuses one prompt). */
const REMEMBERED_MAX = 1000;

/**
 * The prompts calls over SIP trunks were placed with, by hash (call.prompts): written at placement,
 * read when the call is dialed, whichever instance dials it and however long it waited. Calls of
 * the simulated carrier need no prompt text and store none.
 */
export class PromptStore {
  private readonly stored = new Set<string>();

  constructor(private readonly sql: Sql) {}

  /** Keeps `prompt` under `hash` (the agent service's hash of it); a known hash costs nothing. */
  async keep(hash: string, prompt: string): Promise<void> {
    if (this.stored.has(hash)) return;
    await this.sql`
      INSERT INTO call.prompts (hash, prompt) VALUES (${hash}, ${prompt}) ON CONFLICT (hash) DO NOTHING`;
    if (this.stored.size >= REMEMBERED_MAX) this.stored.clear();
    this.stored.add(hash);
  }

  /** The prompt kept under `hash`; null for a call placed before prompts were kept. */
  async find(hash: string): Promise<string | null> {
    const [row] = await this.sql<{ prompt: string }[]>`SELECT prompt FROM call.prompts WHERE hash = ${hash}`;
    return row?.prompt ?? null;
  }
}
