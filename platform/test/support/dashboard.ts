import type { Browser, Page } from 'playwright-core';
import { expect } from 'vitest';
import { createAccount, type TestAccount } from './accounts';
import { launchChromium } from './browser';
import { startTestPlatform, type TestPlatform } from './harness';
import { api, type Envelope } from './http';

/** What the shared setup of the dashboard's browser tests (platform/test/dashboard) gives each file. */
export interface DashboardSuite {
  t: TestPlatform;
  browser: Browser;
  acme: TestAccount;
}

/** How long the page may take to show a change a test is waiting for (a loaded machine). */
export const PAGE_MS = 60_000;

/**
 * The embedded platform and Chromium, started side by side, and an account "Acme". Calls run at
 * SIM_TIME_SCALE 0.05: slow enough that a call is seen ringing and in progress, quick enough that a
 * campaign of a dozen contacts finishes in seconds.
 */
export async function startDashboardSuite(
  options: { plan?: string; rateLimitPerMinute?: number } = {},
): Promise<DashboardSuite> {
  const [t, browser] = await Promise.all([
    startTestPlatform('embedded', { config: { SIM_TIME_SCALE: 0.05 } }),
    launchChromium(),
  ]);
  const acme = await createAccount(t, { name: 'Acme', ...options });
  return { t, browser, acme };
}

export async function stopDashboardSuite(suite: Partial<DashboardSuite>): Promise<void> {
  await suite.browser?.close();
  await suite.t?.stop();
}

/** An agent through the API (Riley, a real-estate lead qualifier, unless told otherwise). */
export async function createAgent(
  t: TestPlatform,
  key: string,
  extra: Record<string, unknown> = {},
): Promise<string> {
  const agent = await api<Envelope<{ id: string }>>(t.url, 'POST', '/v1/agents', {
    key,
    body: {
      name: 'Riley',
      agent_type: 'real_estate_lead_qualifier',
      start_flow: 'Hi, this is Riley from Acme Homes.',
      end_flow: 'Thanks for your time, goodbye!',
      ...extra,
    },
  });
  expect(agent.status, agent.text).toBe(201);
  return agent.body.data.id;
}

/** Types the key into the sign-in form (the caller waits for what it expects next). */
export async function signIn(page: Page, url: string, key: string): Promise<void> {
  await page.goto(`${url}/dashboard`);
  await page.getByLabel('API key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** How wide the page's content is (more than the viewport means it scrolls sideways). */
export function pageWidth(page: Page): Promise<number> {
  return page.evaluate(
    () =>
      (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document
        .documentElement.scrollWidth,
  );
}
