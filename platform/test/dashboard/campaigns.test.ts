import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestAccount } from '../support/accounts';
import { openPage, screenshot } from '../support/browser';
import {
  createAgent,
  PAGE_MS,
  pageWidth,
  signIn,
  startDashboardSuite,
  stopDashboardSuite,
} from '../support/dashboard';
import type { TestPlatform } from '../support/harness';
import { api, type Envelope } from '../support/http';
import { pollUntil } from '../support/poll';

const FROM = '+14155550100';

interface CampaignBody {
  id: string;
  status: string;
  max_concurrent_calls: number;
  calling_window: Record<string, unknown> | null;
  counts: Record<string, number>;
}
interface ContactBody {
  position: number;
  phone_number: string | null;
  state: string;
  skip_reason: string | null;
}
interface PageGlobals {
  notReloaded?: boolean;
}

/**
 * A contact list as an operator exports it: the numbers under `phone_number` beside an `office`
 * column of extensions (so picking the wrong column is easy to see), 14 numbers to dial (two of them
 * the simulated carrier's no-answer and busy test numbers), one row without a number, one invalid
 * number and one repeat of an earlier number.
 */
const VALID = [
  '+14155552001',
  '+14155550001',
  '+14155550002',
  ...Array.from({ length: 11 }, (_, i) => `+1415555${String(3000 + i)}`),
];
const CSV = [
  'first_name,office,phone_number',
  ...VALID.map((number, i) => `Contact ${i + 1},ext ${i + 10},${number}`),
  'Zed,ext 90,',
  '"Quinn, Jr.",ext 91,12345',
  'Repeat,ext 92,+14155552001',
].join('\r\n');

/**
 * The campaign pages in Chromium against the embedded default: a campaign created from a CSV file
 * (column picker, dry-run report), followed live as it runs, paused (calls in flight drain, counts
 * stop), its cap edited, resumed to completion; its contacts' outcomes; another campaign cancelled;
 * and the pages on a phone-sized screen. Screenshots go to SCREENSHOTS (docs/dashboard.md).
 */
describe('dashboard campaign pages in Chromium (embedded)', () => {
  let t: TestPlatform;
  let acme: TestAccount;
  let browser: Browser;
  let agentId: string;

  beforeAll(async () => {
    // The pages and the test both read the campaign often: a large rate limit keeps 429s out of the way.
    ({ t, browser, acme } = await startDashboardSuite({
      plan: 'enterprise',
      rateLimitPerMinute: 100_000,
    }));
    agentId = await createAgent(t, acme.key);
  });
  afterAll(() => stopDashboardSuite({ t, browser }));

  async function campaignNow(id: string): Promise<CampaignBody> {
    const answer = await api<Envelope<CampaignBody>>(t.url, 'GET', `/v1/campaigns/${id}`, { key: acme.key });
    expect(answer.status, answer.text).toBe(200);
    return answer.body.data;
  }

  async function callsOf(id: string): Promise<number> {
    const answer = await api<Envelope<{ total: number }>>(
      t.url,
      'GET',
      `/v1/calls?campaign_id=${id}&page_size=1`,
      { key: acme.key },
    );
    expect(answer.status, answer.text).toBe(200);
    return answer.body.data.total;
  }

  /** What the page shows: the status, contacts done (the progressbar's value) and calls in flight. */
  async function shown(page: Page) {
    const [status, done, inFlight, counts] = await Promise.all([
      page.getByTestId('campaign-page').getAttribute('data-status'),
      page.getByRole('progressbar', { name: 'Contacts done' }).getAttribute('aria-valuenow'),
      page.getByTestId('in-flight').textContent(),
      page.getByTestId('counts').textContent(),
    ]);
    return { status, done: Number(done), inFlight: Number(/^(\d+)/.exec(inFlight ?? '')?.[1]), counts };
  }

  function isFocused(locator: Locator): Promise<boolean> {
    return locator.evaluate(
      (element) =>
        element ===
        (globalThis as unknown as { document: { activeElement: unknown } }).document.activeElement,
    );
  }

  async function dryRunCount(page: Page, key: string): Promise<number> {
    return Number(await page.getByTestId('dry-run-counts').locator(`dd[data-count="${key}"]`).textContent());
  }

  it('creates a campaign from a CSV file, follows it live, pauses, edits and resumes it to completion', async () => {
    const { context, page, problems } = await openPage(browser);
    await signIn(page, t.url, acme.key);
    await page.getByRole('heading', { name: 'Live calls' }).waitFor();
    await page.getByRole('link', { name: 'Campaigns' }).click();
    await page.getByRole('heading', { name: 'Campaigns', level: 1 }).waitFor();
    await page.getByRole('link', { name: 'New campaign' }).click();
    await page.getByRole('heading', { name: 'New campaign' }).waitFor();

    await page.getByLabel('Contacts (CSV file with a header line)').setInputFiles({
      name: 'spring-leads.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from(CSV),
    });
    await page.getByTestId('file-summary').getByText('17 rows').waitFor();
    // The column named like a phone column is guessed; the name comes from the file.
    const column = page.getByLabel('Phone column');
    expect(await column.inputValue()).toBe('phone_number');
    expect(await page.getByLabel('Name', { exact: true }).inputValue()).toBe('spring-leads');
    await page.getByLabel('Name', { exact: true }).fill('Spring leads');
    await page.getByLabel('Call from (E.164)').fill(FROM);
    await page.getByLabel('Calls at once (cap)').fill('2');
    const start = page.getByRole('button', { name: 'Start campaign' });
    expect(await start.isDisabled()).toBe(true);

    // The wrong column first: every "number" is an extension, so nothing would be dialed.
    await column.selectOption('office');
    await page.getByRole('button', { name: 'Check' }).click();
    const report = page.getByTestId('dry-run');
    await report.waitFor({ timeout: PAGE_MS });
    expect(await dryRunCount(page, 'valid')).toBe(0);
    expect(await dryRunCount(page, 'invalidPhone')).toBe(17);
    expect(await start.isEnabled()).toBe(true);

    // Another column makes the report stale: starting waits for a new check.
    await column.selectOption('phone_number');
    expect(await report.getAttribute('data-stale')).toBe('true');
    expect(await start.isDisabled()).toBe(true);
    await page.getByRole('button', { name: 'Check' }).click();
    await pollUntil(
      () => report.getAttribute('data-stale'),
      (stale) => stale === 'false',
      'the second check never reported',
      PAGE_MS,
    );
    expect(await dryRunCount(page, 'total')).toBe(17);
    expect(await dryRunCount(page, 'valid')).toBe(14);
    expect(await dryRunCount(page, 'missingPhone')).toBe(1);
    expect(await dryRunCount(page, 'invalidPhone')).toBe(1);
    expect(await dryRunCount(page, 'duplicate')).toBe(1);
    expect(await dryRunCount(page, 'doNotCall')).toBe(0);
    expect(await report.locator('[data-problem="invalidPhone"] li').allTextContents()).toEqual([
      'Row 16: 12345',
    ]);
    expect(await report.locator('[data-problem="duplicate"] li').allTextContents()).toEqual([
      'Row 17: +14155552001',
    ]);
    expect(await page.getByTestId('dry-run-zones').textContent()).toContain('America/Los_Angeles: 14');
    expect(await page.getByTestId('dry-run-eta').textContent()).toMatch(/^About .*2 calls at once/);
    // Nothing was created by the checks.
    const none = await api<Envelope<{ total: number }>>(t.url, 'GET', '/v1/campaigns', { key: acme.key });
    expect(none.body.data.total).toBe(0);
    await screenshot(page, 'campaign-new');

    await start.click();
    await page.getByRole('heading', { name: 'Spring leads', level: 1 }).waitFor({ timeout: PAGE_MS });
    const campaignId = /\/campaigns\/([0-9a-f-]{36})$/.exec(page.url())?.[1] ?? '';
    expect(campaignId).not.toBe('');
    // A reload would lose this mark: everything below arrives live.
    await page.evaluate(() => {
      (globalThis as unknown as PageGlobals).notReloaded = true;
    });

    // The counts move: calls go out (never more than the cap) and the first end, giving an ETA.
    let mostInFlight = 0;
    await pollUntil(
      async () => {
        const now = await shown(page);
        mostInFlight = Math.max(mostInFlight, now.inFlight);
        return { ...now, eta: await page.getByTestId('eta').textContent() };
      },
      (now) => now.done > 3 && /^about /.test(now.eta ?? ''),
      'no call of the campaign ever ended on the page',
      PAGE_MS,
    );
    expect(mostInFlight).toBeGreaterThan(0);
    expect(mostInFlight).toBeLessThanOrEqual(2);

    // Pause: the calls in flight finish, then nothing moves.
    await page.getByRole('button', { name: 'Pause' }).click();
    const paused = await pollUntil(
      () => shown(page),
      (now) => now.status === 'PAUSED' && now.inFlight === 0,
      'the paused campaign never drained its calls in flight',
      PAGE_MS,
    );
    expect(paused.done).toBeLessThan(17);
    expect(await page.getByTestId('eta').textContent()).toBe('paused');
    expect(await page.getByRole('button', { name: 'Resume' }).isEnabled()).toBe(true);
    expect(await page.getByRole('button', { name: 'Pause' }).isDisabled()).toBe(true);
    const callsWhenPaused = await callsOf(campaignId);
    const pausedApi = await campaignNow(campaignId);
    expect(pausedApi.counts.in_progress).toBe(0);
    expect(pausedApi.counts.pending).toBe(17 - paused.done);

    // While paused, the cap is edited: a refused value is shown beside its field, then a good one saved.
    const cap = page.getByLabel('Calls at once (cap)');
    await cap.fill('500');
    await page.getByRole('button', { name: 'Save settings' }).click();
    const capError = page.locator('#edit-cap-error');
    await capError.waitFor({ timeout: PAGE_MS });
    expect(await capError.textContent()).toMatch(/50/);
    expect(await cap.getAttribute('aria-invalid')).toBe('true');
    await cap.fill('3');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByText('Settings saved.').waitFor({ timeout: PAGE_MS });
    await page.getByTestId('in-flight').getByText('0 of at most 3').waitFor({ timeout: PAGE_MS });
    expect((await campaignNow(campaignId)).max_concurrent_calls).toBe(3);
    // All that while, no call was placed and the counts stood still.
    expect(await callsOf(campaignId)).toBe(callsWhenPaused);
    expect(await shown(page)).toEqual(paused);
    await screenshot(page, 'campaign-paused');

    // Resume: the counts move again, to completion, with no reload.
    await page.getByRole('button', { name: 'Resume' }).click();
    await pollUntil(
      () => shown(page),
      (now) => now.done > paused.done,
      'the counts never moved after resume',
      PAGE_MS,
    );
    await pollUntil(
      () => shown(page),
      (now) => now.status === 'COMPLETED' && now.done === 17,
      'the campaign never showed completed',
      PAGE_MS * 2,
    );
    expect(await page.evaluate(() => (globalThis as unknown as PageGlobals).notReloaded)).toBe(true);
    expect(await page.getByTestId('eta').textContent()).toMatch(/^finished /);
    expect(await page.getByRole('button', { name: 'Cancel campaign' }).isDisabled()).toBe(true);

    // The contacts table shows each contact's outcome and reason, as the API has them.
    const contacts = await api<Envelope<{ items: ContactBody[] }>>(
      t.url,
      'GET',
      `/v1/campaigns/${campaignId}/contacts?page_size=100`,
      { key: acme.key },
    );
    expect(contacts.status, contacts.text).toBe(200);
    const rows = page.getByTestId('contacts').locator('tbody tr');
    await pollUntil(
      () =>
        rows.evaluateAll((all) =>
          all.map((row) => (row as unknown as { dataset: { state: string } }).dataset.state),
        ),
      (states) =>
        states.length === 17 &&
        states.every((state, i) => state === contacts.body.data.items[i]?.state.toUpperCase()),
      'the contacts table never showed the final states',
      PAGE_MS,
    );
    const byPosition = (position: number) => page.locator(`tr[data-position="${position}"]`);
    expect(await byPosition(1).getAttribute('data-state')).toBe('NO_ANSWER');
    expect(await byPosition(2).getAttribute('data-state')).toBe('BUSY');
    expect(await byPosition(0).getAttribute('data-state')).toBe('COMPLETED');
    expect(await byPosition(14).getByTestId('reason').textContent()).toBe('missing phone');
    expect(await byPosition(15).getByTestId('reason').textContent()).toBe('invalid phone');
    expect(await byPosition(16).getByTestId('reason').textContent()).toBe('duplicate');
    expect(
      await byPosition(0)
        .getByRole('link', { name: /View call/ })
        .count(),
    ).toBe(1);
    await screenshot(page, 'campaign-page');

    // The list shows it finished, with its counts.
    await page.getByRole('link', { name: 'Campaigns', exact: true }).first().click();
    const row = page.locator(`tr[data-campaign-id="${campaignId}"]`);
    await row.waitFor({ timeout: PAGE_MS });
    expect(await row.getAttribute('data-status')).toBe('COMPLETED');
    expect(await row.getByTestId('done-count').textContent()).toBe('17 / 17 done');
    expect(problems).toEqual([]);
    await context.close();
  });

  it('edits a scheduled campaign, then cancels it after asking', async () => {
    const created = await api<Envelope<CampaignBody>>(t.url, 'POST', '/v1/campaigns', {
      key: acme.key,
      body: {
        name: 'Autumn leads',
        agent_id: agentId,
        phone_number: FROM,
        contacts: [{ phone: '+14155554001' }, { phone: '+14155554002' }, { phone: '+14155554003' }],
        start_at: new Date(Date.now() + 3_600_000).toISOString(),
      },
    });
    expect(created.status, created.text).toBe(201);
    const id = created.body.data.id;
    const { context, page, problems } = await openPage(browser);
    await signIn(page, t.url, acme.key);
    await page.getByRole('heading', { name: 'Live calls' }).waitFor();
    await page.goto(`${t.url}/dashboard/campaigns/${id}`);
    await page
      .getByRole('heading', { name: 'Autumn leads', level: 1, exact: true })
      .waitFor({ timeout: PAGE_MS });
    expect(await page.getByTestId('campaign-page').getAttribute('data-status')).toBe('SCHEDULED');

    // Its name and calling window are edited; the server's refusal of a window field shows beside it.
    await page.getByLabel('Name', { exact: true }).fill('Autumn leads (EU)');
    await page.getByLabel('Only call inside a window of local time').check();
    const from = page.getByLabel('From (HH:MM)');
    await from.fill('25:00');
    await page.getByLabel('Time zone', { exact: true }).fill('Europe/Paris');
    await page.getByRole('button', { name: 'Save settings' }).click();
    const fromError = page.locator('#edit-window-start-error');
    await fromError.waitFor({ timeout: PAGE_MS });
    expect(await fromError.textContent()).toMatch(/HH:MM/);
    expect(await from.getAttribute('aria-invalid')).toBe('true');
    expect((await campaignNow(id)).calling_window).toBeNull();
    await from.fill('09:00');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByText('Settings saved.').waitFor({ timeout: PAGE_MS });
    await page.getByRole('heading', { name: 'Autumn leads (EU)', level: 1 }).waitFor();
    expect(await page.getByTestId('calling-window').textContent()).toBe(
      'mon, tue, wed, thu, fri 09:00–18:00 (Europe/Paris)',
    );
    expect((await campaignNow(id)).calling_window).toEqual({
      days: ['mon', 'tue', 'wed', 'thu', 'fri'],
      start: '09:00',
      end: '18:00',
      timezone: 'Europe/Paris',
      fallback_timezone: 'UTC',
    });

    // Cancel only asks first, by keyboard too: the question takes the focus on "Keep it", which leaves
    // the campaign as it was and gives the focus back; Escape does the same.
    const cancel = page.getByRole('button', { name: 'Cancel campaign' });
    const dialog = page.getByRole('alertdialog');
    const keep = dialog.getByRole('button', { name: 'Keep it' });
    await cancel.focus();
    await page.keyboard.press('Enter');
    await dialog.waitFor();
    await pollUntil(() => isFocused(keep), Boolean, '"Keep it" never took the focus', PAGE_MS);
    await page.keyboard.press('Enter');
    await pollUntil(
      () => isFocused(cancel),
      Boolean,
      'the focus never came back to "Cancel campaign"',
      PAGE_MS,
    );
    expect(await dialog.count()).toBe(0);
    await page.keyboard.press('Enter');
    await pollUntil(() => isFocused(keep), Boolean, '"Keep it" never took the focus again', PAGE_MS);
    await page.keyboard.press('Escape');
    await pollUntil(
      () => dialog.count(),
      (n) => n === 0,
      'Escape never closed the question',
      PAGE_MS,
    );
    expect((await campaignNow(id)).status).toBe('scheduled');

    await page.getByRole('button', { name: 'Cancel campaign' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Yes, cancel it' }).click();
    await pollUntil(
      () => page.getByTestId('campaign-page').getAttribute('data-status'),
      (status) => status === 'CANCELLED',
      'the campaign never showed cancelled',
      PAGE_MS,
    );
    expect(await page.locator('[data-count="cancelled"] strong').textContent()).toBe('3');
    const cancelled = await campaignNow(id);
    expect(cancelled.status).toBe('cancelled');
    expect(cancelled.counts.cancelled).toBe(3);
    expect(await callsOf(id)).toBe(0);

    // The list shows it cancelled, with its counts.
    await page.getByRole('link', { name: 'Campaigns', exact: true }).first().click();
    const row = page.locator(`tr[data-campaign-id="${id}"]`);
    await row.waitFor({ timeout: PAGE_MS });
    expect(await row.getAttribute('data-status')).toBe('CANCELLED');
    expect(await row.getByTestId('done-count').textContent()).toBe('3 / 3 done');
    await screenshot(page, 'campaigns-list');
    expect(problems).toEqual([]);
    await context.close();
  });

  it('follows a campaign live on the list, and fits a phone-sized screen, by keyboard', async () => {
    // A campaign of its own, so this test stands alone: two contacts to call and one skipped.
    const created = await api<Envelope<CampaignBody>>(t.url, 'POST', '/v1/campaigns', {
      key: acme.key,
      body: {
        name: 'Phone check',
        agent_id: agentId,
        phone_number: FROM,
        contacts: [{ phone: '+14155555001' }, { phone: '+14155555002' }, { phone: 'nope' }],
      },
    });
    expect(created.status, created.text).toBe(201);
    const id = created.body.data.id;
    // Paused before the list opens, resumed while it is open: the list must follow it live.
    const paused = await api(t.url, 'POST', `/v1/campaigns/${id}/pause`, { key: acme.key });
    expect(paused.status, paused.text).toBe(200);
    const { context, page, problems } = await openPage(browser, { width: 375, height: 740 });
    await signIn(page, t.url, acme.key);
    await page.getByRole('heading', { name: 'Live calls' }).waitFor();
    await page.goto(`${t.url}/dashboard/campaigns`);
    const row = page.locator(`tr[data-campaign-id="${id}"]`);
    await row.waitFor({ timeout: PAGE_MS });
    expect(await row.getAttribute('data-status')).toBe('PAUSED');
    await page.evaluate(() => {
      (globalThis as unknown as PageGlobals).notReloaded = true;
    });
    const resumed = await api(t.url, 'POST', `/v1/campaigns/${id}/resume`, { key: acme.key });
    expect(resumed.status, resumed.text).toBe(200);
    await pollUntil(
      async () =>
        `${await row.getAttribute('data-status')} ${await row.getByTestId('done-count').textContent()}`,
      (shown) => shown === 'COMPLETED 3 / 3 done',
      'the list never showed the resumed campaign completed',
      PAGE_MS,
    );
    expect(await page.evaluate(() => (globalThis as unknown as PageGlobals).notReloaded)).toBe(true);
    expect(await pageWidth(page)).toBeLessThanOrEqual(375);
    const link = row.getByRole('link', { name: 'Phone check' });
    await link.focus();
    await page.keyboard.press('Enter');
    await page.getByTestId('campaign-page').waitFor();
    await page.getByTestId('contacts').locator('tbody tr').first().waitFor({ timeout: PAGE_MS });
    expect(await page.getByTestId('campaign-page').getAttribute('data-status')).toBe('COMPLETED');
    expect(await pageWidth(page)).toBeLessThanOrEqual(375);
    await screenshot(page, 'campaign-page-phone');
    await page.goto(`${t.url}/dashboard/campaigns/new`);
    await page.getByRole('heading', { name: 'New campaign' }).waitFor();
    expect(await pageWidth(page)).toBeLessThanOrEqual(375);
    expect(problems).toEqual([]);
    await context.close();
  });
});
