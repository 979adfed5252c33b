import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, type TestAccount } from '../support/accounts';
import { BoardCalls } from '../support/board-calls';
import { answerBoardSocket, heapAfterGc } from '../support/board-socket';
import { launchChromium, openPage } from '../support/browser';
import { startTestPlatform, type TestPlatform } from '../support/harness';

/** Events pushed in one go: a few hundred calls, more than the board keeps. */
const EVENTS = 2000;
const BOARD_ROWS = 200;

/**
 * The calls board under a burst of live events: the page's graphql-ws socket is answered by the
 * test, which pushes callStatusChanged events through the app's real subscription client as fast
 * as it can. The board must keep only its newest rows, show the latest state, and not hold on to
 * what it dropped. Its speed under a steady 1,000 calls a minute is measured by `pnpm bench
 * dashboard` (docs/dashboard.md, "Performance"), not here.
 */
describe('calls board under a burst of live events (embedded)', () => {
  let t: TestPlatform;
  let acme: TestAccount;
  let browser: Browser;

  beforeAll(async () => {
    [t, browser] = await Promise.all([startTestPlatform('embedded'), launchChromium()]);
    acme = await createAccount(t, { name: 'Acme' });
  });
  afterAll(async () => {
    await browser?.close();
    await t?.stop();
  });

  it('keeps its newest rows, each in its latest state, and lets the rest go', async () => {
    const { context, page, problems } = await openPage(browser);
    const socket = await answerBoardSocket(page);
    await page.goto(`${t.url}/dashboard`);
    await page.getByLabel('API key').fill(acme.key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Live calls' }).waitFor();
    await socket.subscribed;
    const heapBefore = await heapAfterGc(context, page);

    const calls = new BoardCalls(50);
    while (calls.sent < EVENTS) socket.push(calls.next());
    for (const event of calls.drain()) socket.push(event);
    const newest = calls.newest!;

    const rows = page.locator('[data-testid="calls-board"] tbody tr');
    // The last event pushed has been applied once the newest call is the first row, ended.
    await page
      .locator(
        `[data-testid="calls-board"] tbody tr:first-child[data-call-id="${newest}"][data-status="COMPLETED"]`,
      )
      .waitFor();
    const shown = await rows.count();
    expect(shown).toBeLessThanOrEqual(BOARD_ROWS);
    expect(shown).toBeGreaterThan(100);
    await expect.poll(() => page.getByText(`${shown} calls shown`).count(), { timeout: 10_000 }).toBe(1);
    // Every row shown is a call that has ended, as every pushed call has.
    expect(await rows.locator(':scope:not([data-status="COMPLETED"])').count()).toBe(0);

    // The dropped calls are not kept: the heap grows by the rows shown, not by the events seen.
    const heapAfter = await heapAfterGc(context, page);
    expect(heapAfter - heapBefore).toBeLessThan(16 * 2 ** 20);
    expect(problems).toEqual([]);
    await context.close();
  });
});
