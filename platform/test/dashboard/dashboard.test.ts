import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestAccount } from '../support/accounts';
import { openPage, screenshot } from '../support/browser';
import {
  createAgent,
  PAGE_MS,
  pageWidth,
  signIn as signInWith,
  startDashboardSuite,
  stopDashboardSuite,
} from '../support/dashboard';
import type { TestPlatform } from '../support/harness';
import { api, type Envelope } from '../support/http';
import { pollUntil } from '../support/poll';

const FROM = '+14155550100';

/*
 * What the page's own scripts see, as the callbacks run in the browser use it (the test project's
 * types are Node's, without the DOM's).
 */
interface Audio {
  readyState: number;
  duration: number;
  currentTime: number;
  play(): Promise<void>;
  pause(): void;
  addEventListener(type: 'seeked', listener: () => void, options: { once: boolean }): void;
}
interface PageGlobals {
  sessionStorage: { length: number };
  document: { activeElement: { textContent: string | null } | null };
  notReloaded?: boolean;
}

/**
 * The dashboard in a real browser (Debian's Chromium driven by playwright-core) against the
 * embedded default, as `pnpm start` runs it: sign-in, a refused key, the live board, a call's page
 * and its recording, the account page. Screenshots go to SCREENSHOTS (docs/dashboard.md).
 */
describe('dashboard in Chromium (embedded)', () => {
  let t: TestPlatform;
  let acme: TestAccount;
  let agentId: string;
  let browser: Browser;

  beforeAll(async () => {
    // Calls slow enough that one is seen ringing and in progress before it completes.
    ({ t, browser, acme } = await startDashboardSuite());
    agentId = await createAgent(t, acme.key);
  });
  afterAll(() => stopDashboardSuite({ t, browser }));

  const signIn = (page: Page, key: string) => signInWith(page, t.url, key);

  it('refuses a bad key with a clear message and keeps nothing', async () => {
    const { context, page, problems } = await openPage(browser);
    await signIn(page, 'vk_not_a_real_key_0000000000000000');
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toMatch(/This API key was refused: .*invalid API key/i);
    expect(await page.evaluate(() => (globalThis as unknown as PageGlobals).sessionStorage.length)).toBe(0);
    await screenshot(page, 'sign-in-refused');
    expect(problems).toEqual([]);
    await context.close();
  });

  it('shows a placed call moving to completed on the board without a reload, then its page and recording', async () => {
    const { context, page, problems } = await openPage(browser);
    await signIn(page, acme.key);
    await page.getByRole('heading', { name: 'Live calls' }).waitFor();
    await page.getByTestId('live-state').getByText('Live').waitFor();
    // A reload would lose this mark.
    await page.evaluate(() => {
      (globalThis as unknown as PageGlobals).notReloaded = true;
    });

    const placed = await api<Envelope<{ id: string }>>(t.url, 'POST', '/v1/call', {
      key: acme.key,
      body: { agent_id: agentId, source_number: FROM, phone_number: '+14155551234' },
    });
    expect(placed.status, placed.text).toBe(201);
    const row = page.locator(`tr[data-call-id="${placed.body.data.id}"]`);
    const seen = new Set<string>();
    await pollUntil(
      async () => (await row.count()) > 0 && (await row.getAttribute('data-status')),
      (status) => {
        if (status) seen.add(status);
        return status === 'COMPLETED';
      },
      'the call never showed completed on the board',
      PAGE_MS,
    );
    // It went through live states on the way, pushed by the subscription.
    expect(
      [...seen].some((status) => status !== 'COMPLETED'),
      [...seen].join(','),
    ).toBe(true);
    expect(await page.evaluate(() => (globalThis as unknown as PageGlobals).notReloaded)).toBe(true);
    await screenshot(page, 'calls-board');

    await row.getByRole('link').click();
    const callPage = page.getByTestId('call-page');
    await callPage.waitFor();
    expect(await callPage.getAttribute('data-status')).toBe('COMPLETED');
    expect(await page.getByTestId('transcript').locator('li').count()).toBeGreaterThan(0);
    expect(await page.getByTestId('sip-code').textContent()).toMatch(/200/);

    const audio = page.getByTestId('recording');
    await audio.waitFor();
    const duration = await pollUntil(
      () =>
        audio.evaluate((element) => ((element as Audio).readyState >= 1 ? (element as Audio).duration : 0)),
      (value) => value > 1,
      'the recording never loaded its metadata',
      PAGE_MS,
    );
    await audio.evaluate((element) => (element as Audio).play());
    await pollUntil(
      () => audio.evaluate((element) => (element as Audio).currentTime),
      (time) => time > 0.2,
      'the recording never played',
      PAGE_MS,
    );
    const target = Math.min(duration - 0.5, duration / 2 + 1);
    const landed = await audio.evaluate(
      (element: unknown, to: number) =>
        new Promise<number>((done) => {
          const audio = element as Audio;
          audio.addEventListener('seeked', () => done(audio.currentTime), { once: true });
          audio.currentTime = to;
        }),
      target,
    );
    expect(Math.abs(landed - target)).toBeLessThan(0.5);
    await audio.evaluate((element) => (element as Audio).pause());
    await screenshot(page, 'call-page');
    expect(problems).toEqual([]);
    await context.close();
  });

  it('shows the key, its scopes, the rate-limit headroom and the calls in flight on the account page', async () => {
    const { context, page, problems } = await openPage(browser);
    await signIn(page, acme.key);
    await page.getByRole('link', { name: 'Account' }).click();
    await page.getByRole('heading', { name: 'Account', level: 1 }).waitFor();
    await page.getByTestId('scopes').waitFor();
    expect(await page.getByTestId('key-prefix').textContent()).toBe(`${acme.key.slice(0, 12)}…`);
    expect(await page.getByTestId('scopes').locator('li').count()).toBeGreaterThan(0);
    expect(await page.getByTestId('rate-remaining').textContent()).toMatch(/^\d+ \/ \d+$/);
    expect(await page.getByTestId('active-calls').textContent()).toMatch(/^\d+ \/ \d+$/);
    await screenshot(page, 'account');
    expect(problems).toEqual([]);
    await context.close();
  });

  it('works on a phone-sized screen, from a deep link, with the keyboard', async () => {
    const { context, page, problems } = await openPage(browser, { width: 375, height: 740 });
    await signIn(page, acme.key);
    await page.getByRole('heading', { name: 'Live calls' }).waitFor();
    // A deep link loads the app (the gateway's SPA fallback), and the key survives in this tab.
    await page.goto(`${t.url}/dashboard/account`);
    await page.getByRole('heading', { name: 'Account', level: 1 }).waitFor();
    // Nothing scrolls sideways.
    expect(await pageWidth(page)).toBeLessThanOrEqual(375);
    // The skip link comes first, then the navigation, by keyboard alone.
    await page.keyboard.press('Tab');
    expect(
      await page.evaluate(() => (globalThis as unknown as PageGlobals).document.activeElement?.textContent),
    ).toBe('Skip to content');
    await page.keyboard.press('Tab');
    expect(
      await page.evaluate(() => (globalThis as unknown as PageGlobals).document.activeElement?.textContent),
    ).toBe('Calls');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Live calls' }).waitFor();
    await page.locator('tr[data-status="COMPLETED"]').first().waitFor();
    expect(await pageWidth(page)).toBeLessThanOrEqual(375);
    await screenshot(page, 'calls-board-phone');
    expect(problems).toEqual([]);
    await context.close();
  });
});
