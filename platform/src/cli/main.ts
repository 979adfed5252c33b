import { parseArgs } from 'node:util';
import { AdminClient } from './admin-client';

const USAGE = `Operator CLI for the Voice Agent Calling platform (talks to the admin API).

Usage: pnpm voice <command> [options]

  accounts create --name <name> [--plan free|pro|enterprise] [--rate-limit <per minute>]
  accounts list [--page <n> | --cursor <next_cursor>] [--page-size <n>]
  accounts get <account_id>
  keys create --account <account_id> [--name <name>] [--scopes agents:read,calls:write,...]
  keys list --account <account_id> [--page <n> | --cursor <next_cursor>] [--page-size <n>]
  keys revoke <key_id>

Environment: VOICE_API_URL (default http://127.0.0.1:3000), ADMIN_TOKEN (required).
Add --json for machine-readable output.`;

const OPTIONS = {
  name: { type: 'string' },
  plan: { type: 'string' },
  'rate-limit': { type: 'string' },
  account: { type: 'string' },
  scopes: { type: 'string' },
  page: { type: 'string' },
  cursor: { type: 'string' },
  'page-size': { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>['values'];

function need(value: string | undefined, flag: string): string {
  if (!value) throw new Error(`--${flag} is required`);
  return value;
}

function integer(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw new Error(`--${flag} must be a whole number`);
  return Number(value);
}

async function run(client: AdminClient, words: string[], values: Values): Promise<unknown> {
  const [group, action, id] = words;
  const pageQuery = new URLSearchParams({
    page: String(integer(values.page, 'page') ?? 1),
    page_size: String(integer(values['page-size'], 'page-size') ?? 20),
    ...(values.cursor ? { cursor: values.cursor } : {}),
  }).toString();
  switch (`${group} ${action}`) {
    case 'accounts create':
      return client.request('POST', '/admin/accounts', {
        name: need(values.name, 'name'),
        plan: values.plan ?? 'free',
        ...(values['rate-limit']
          ? { rate_limit_per_minute: integer(values['rate-limit'], 'rate-limit') }
          : {}),
      });
    case 'accounts list':
      return client.request('GET', `/admin/accounts?${pageQuery}`);
    case 'accounts get':
      return client.request('GET', `/admin/accounts/${encodeURIComponent(need(id, 'account_id'))}`);
    case 'keys create':
      return client.request(
        'POST',
        `/admin/accounts/${encodeURIComponent(need(values.account, 'account'))}/api-keys`,
        {
          ...(values.name ? { name: values.name } : {}),
          ...(values.scopes ? { scopes: values.scopes.split(',').map((s) => s.trim()) } : {}),
        },
      );
    case 'keys list':
      return client.request(
        'GET',
        `/admin/accounts/${encodeURIComponent(need(values.account, 'account'))}/api-keys?${pageQuery}`,
      );
    case 'keys revoke':
      await client.request('DELETE', `/admin/api-keys/${encodeURIComponent(need(id, 'key_id'))}`);
      return { revoked: id };
    default:
      throw new Error(`Unknown command '${words.join(' ')}'\n\n${USAGE}`);
  }
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({ options: OPTIONS, allowPositionals: true, strict: true });
  if (values.help || positionals.length === 0) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const token = process.env.ADMIN_TOKEN;
  if (!token) throw new Error('ADMIN_TOKEN is not set: the CLI authenticates to the admin API with it');
  const client = new AdminClient(process.env.VOICE_API_URL ?? 'http://127.0.0.1:3000', token);
  const result = await run(client, positionals, values);
  process.stdout.write(values.json ? `${JSON.stringify(result)}\n` : `${JSON.stringify(result, null, 2)}\n`);
  const created = result as { key?: string } | undefined;
  if (!values.json && created?.key) {
    process.stderr.write('\nThis is the only time the key is shown. Store it in a secret manager now.\n');
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`voice: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
