import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { GatewayDeps } from '@voice/gateway';
import type { Config, Logger } from '@voice/shared';

const KEY_FILE = 'dev-api-key';

async function readSavedKey(path: string): Promise<string | undefined> {
  try {
    return (await readFile(path, 'utf8')).trim() || undefined;
  } catch {
    return undefined;
  }
}

/**
 * The embedded default's development account (plan pro) and its key: VOICE_DEV_API_KEY when set,
 * else the key generated on first start and kept in DATA_DIR so restarts print the same key. A new
 * account's concurrent-call limit goes to the call service as an admin-created one's does.
 */
export async function ensureDevelopmentKey(
  { accounts, callLimits }: Pick<GatewayDeps, 'accounts' | 'callLimits'>,
  config: Config,
  log: Logger,
): Promise<string> {
  let account = await accounts.findDevelopmentAccount();
  if (!account) {
    account = await accounts.createAccount({ name: 'Development', plan: 'pro', isDevelopment: true });
    await callLimits.push(account.id);
  }
  const keyFile = join(config.DATA_DIR, KEY_FILE);
  let wanted = config.VOICE_DEV_API_KEY ?? (await readSavedKey(keyFile));
  const status = wanted ? await accounts.keyStatus(wanted) : 'absent';
  if (status === 'active') return wanted!;
  if (status === 'revoked') {
    // A revoked key stays revoked: an operator's choice outlives restarts.
    if (config.VOICE_DEV_API_KEY) throw new Error('VOICE_DEV_API_KEY names a revoked key; choose another');
    wanted = undefined;
  }
  const created = await accounts.createKey(account.id, {
    name: 'development',
    ...(wanted ? { key: wanted } : {}),
  });
  if (!config.VOICE_DEV_API_KEY) {
    await mkdir(config.DATA_DIR, { recursive: true });
    await writeFile(keyFile, `${created.key}\n`, { mode: 0o600 });
    await chmod(keyFile, 0o600);
  }
  log.info({ account_id: account.id, key_id: created.id }, 'development API key ready');
  return created.key;
}
