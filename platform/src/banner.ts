import type { Config } from '@voice/shared';

/** What a developer needs after `pnpm start`: where the API is and the key to call it with. */
export function printBanner(input: {
  url: string;
  devKey: string | undefined;
  metricsUrl: string | undefined;
  config: Config;
  embedded: boolean;
}): void {
  const lines = [
    '',
    `  Voice Agent Calling API is running at ${input.url}`,
    `  Mode: ${input.embedded ? `embedded (in-process bus, PostgreSQL in ${input.config.DATA_DIR})` : 'NATS + PostgreSQL'}`,
    `  Docs: ${input.url}/docs   OpenAPI: ${input.url}/v1/openapi.json`,
  ];
  if (input.metricsUrl) lines.push(`  Metrics: ${input.metricsUrl}`);
  if (input.devKey) {
    lines.push(`  Development API key: ${input.devKey}`);
    lines.push(`  Try: curl -H "Authorization: Bearer ${input.devKey}" ${input.url}/v1/me`);
  }
  if (input.config.ADMIN_TOKEN) lines.push('  Admin API: enabled (ADMIN_TOKEN)');
  process.stdout.write(`${lines.join('\n')}\n\n`);
}
