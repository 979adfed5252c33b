import { type Config, describeTestNumbers, type TelephonyProviderInfo } from '@voice/shared';

/** The banner's lines about telephony: a simulated carrier must never pass for a real network. */
export function telephonyLines(telephony: TelephonyProviderInfo | undefined, url: string): string[] {
  if (!telephony) return [`  Telephony: the call service's provider, named at ${url}/v1/health`];
  if (telephony.provider !== 'simulated') return [`  Telephony: ${telephony.provider}`];
  return [
    `  Telephony: SIMULATED carrier, no real phone calls are placed (SIM_TIME_SCALE=${telephony.time_scale})`,
    `  Test numbers: ${describeTestNumbers()}`,
  ];
}

/** What a developer needs after `pnpm start`: where the API is and the key to call it with. */
export function printBanner(input: {
  url: string;
  devKey: string | undefined;
  metricsUrl: string | undefined;
  config: Config;
  embedded: boolean;
  /** The provider of the call service running in this process; undefined when it runs elsewhere. */
  telephony: TelephonyProviderInfo | undefined;
}): void {
  const lines = [
    '',
    `  Voice Agent Calling API is running at ${input.url}`,
    `  Mode: ${input.embedded ? `embedded (in-process bus, PostgreSQL in ${input.config.DATA_DIR})` : 'NATS + PostgreSQL'}`,
    `  Docs: ${input.url}/docs   OpenAPI: ${input.url}/v1/openapi.json`,
    ...telephonyLines(input.telephony, input.url),
  ];
  if (input.metricsUrl) lines.push(`  Metrics: ${input.metricsUrl}`);
  if (input.devKey) {
    lines.push(`  Development API key: ${input.devKey}`);
    lines.push(`  Try: curl -H "Authorization: Bearer ${input.devKey}" ${input.url}/v1/me`);
  }
  if (input.config.ADMIN_TOKEN) lines.push('  Admin API: enabled (ADMIN_TOKEN)');
  process.stdout.write(`${lines.join('\n')}\n\n`);
}
