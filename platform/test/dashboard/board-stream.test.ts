import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import type { Browser, WebSocketRoute } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, type TestAccount } from '../support/accounts';
import { launchChromium, openPage, SCREENSHOTS, screenshot } from '../support/browser';
import { startTestPlatform, type TestPlatform } from '../support/harness';

/** The stream of the issue (#29): 1,000 calls a minute, each seen four times (dialing to its end). */
const CALLS_PER_MINUTE = 1000;
const STATUSES = ['INITIALIZING', 'RINGING', 'IN_PROGRESS', 'COMPLETED'] as const;
/** Simulated minutes of stream, and how much faster than real time they are sent (a CI run's budget). */
const MINUTES = Number(process.env.DASHBOARD_STREAM_MINUTES ?? 10);
const SPEED = Number(process.env.DASHBOARD_STREAM_SPEED ?? 10);
const TICK_MS = 100;

interface PageProbe {
  frames: number[];
  longTasks: number[];
}
type ProbeWindow = {
  probe: PageProbe;
  requestAnimationFrame(cb: (t: number) => void): void;
  PerformanceObserver: new (
    cb: (list: { getEntries(): { duration: number }[] }) => void,
  ) => { observe(options: { type: string }): void };
};

/**
 * The calls board under a stream: the page's graphql-ws socket is answered by the test (Playwright's
 * routeWebSocket), which pushes callStatusChanged events at 1,000 calls a minute (sped up) through
 * the app's real subscription client; queries still go to the platform. Frame times and the heap
 * after a forced GC are measured in the browser (docs/dashboard.md, "Performance"). A measurement
 * run on demand (DASHBOARD_STREAM=1), like the benchmarks: its minutes of streaming do not fit the
 * suite on a loaded machine.
 */
describe.skipIf(process.env.DASHBOARD_STREAM !== '1')(
  'calls board under a 1,000 calls/minute stream (embedded)',
  () => {
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

    // The stream's own wall time, plus start-up and a loaded machine's slack.
    it('keeps frames short and memory flat', { timeout: (MINUTES * 60_000) / SPEED + 180_000 }, async () => {
      const { context, page, problems } = await openPage(browser);
      let socket: WebSocketRoute | undefined;
      let subscriptionId: string | undefined;
      await page.routeWebSocket(/\/graphql$/, (ws) => {
        socket = ws;
        ws.onMessage((raw) => {
          const message = JSON.parse(String(raw)) as { type: string; id?: string };
          if (message.type === 'connection_init') ws.send(JSON.stringify({ type: 'connection_ack' }));
          else if (message.type === 'ping') ws.send(JSON.stringify({ type: 'pong' }));
          else if (message.type === 'subscribe') subscriptionId = message.id;
        });
      });
      await page.goto(`${t.url}/dashboard`);
      await page.getByLabel('API key').fill(acme.key);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { name: 'Live calls' }).waitFor();
      const until = Date.now() + 30_000;
      while (!subscriptionId && Date.now() < until) await delay(20);
      expect(subscriptionId, 'the board never subscribed').toBeDefined();

      const cdp = await context.newCDPSession(page);
      const heapAfterGc = async () => {
        await cdp.send('HeapProfiler.collectGarbage');
        return (await cdp.send('Runtime.getHeapUsage')).usedSize;
      };
      await page.evaluate(() => {
        const w = globalThis as unknown as ProbeWindow;
        w.probe = { frames: [], longTasks: [] };
        let last = 0;
        const frame = (now: number) => {
          if (last) w.probe.frames.push(now - last);
          last = now;
          w.requestAnimationFrame(frame);
        };
        w.requestAnimationFrame(frame);
        new w.PerformanceObserver((list) => {
          for (const entry of list.getEntries()) w.probe.longTasks.push(entry.duration);
        }).observe({ type: 'longtask' });
      });

      // Each tick: the new calls of this slice of simulated time, and the next status of those in flight.
      const eventsPerTick = (CALLS_PER_MINUTE * STATUSES.length * SPEED * TICK_MS) / 60_000;
      const ticks = Math.round((MINUTES * 60_000) / SPEED / TICK_MS);
      const inFlight: { id: string; step: number; createdAt: string; phone: string }[] = [];
      let sent = 0;
      let owed = 0;
      let heapAfterFirstMinute = 0;
      const started = Date.now();
      for (let tick = 0; tick < ticks; tick++) {
        owed += eventsPerTick;
        while (owed >= 1) {
          owed -= 1;
          // A new call for every four events, so calls go through their statuses in turn.
          if (sent % STATUSES.length === 0) {
            inFlight.push({
              id: randomUUID(),
              step: 0,
              createdAt: new Date(started + sent).toISOString(),
              phone: `+1415555${String(sent % 10_000).padStart(4, '0')}`,
            });
          }
          const call = inFlight[0]!;
          const status = STATUSES[call.step]!;
          call.step += 1;
          if (call.step === STATUSES.length) inFlight.shift();
          else inFlight.push(inFlight.shift()!);
          socket!.send(
            JSON.stringify({
              id: subscriptionId,
              type: 'next',
              payload: {
                data: {
                  callStatusChanged: {
                    id: call.id,
                    status,
                    phoneNumber: call.phone,
                    agentId: '00000000-0000-4000-8000-000000000001',
                    agentName: 'Riley',
                    campaignId: null,
                    createdAt: call.createdAt,
                    durationSeconds: status === 'COMPLETED' ? 42 : 0,
                    totalCost: status === 'COMPLETED' ? 0.0123 : 0,
                    costCurrency: 'USD',
                  },
                },
              },
            }),
          );
          sent += 1;
        }
        if (tick === Math.round(ticks / MINUTES)) heapAfterFirstMinute = await heapAfterGc();
        const due = started + (tick + 1) * TICK_MS;
        if (due > Date.now()) await delay(due - Date.now());
      }
      const wallSeconds = (Date.now() - started) / 1000;
      // The last events are shown once the page has taken them all.
      await page.locator('tbody tr').first().waitFor();
      const heapAtEnd = await heapAfterGc();
      const probe = await page.evaluate(() => (globalThis as unknown as ProbeWindow).probe);
      const rows = await page.locator('tbody tr').count();
      const frames = [...probe.frames].sort((a, b) => a - b);
      const pct = (p: number) => frames[Math.min(frames.length - 1, Math.floor(frames.length * p))] ?? 0;
      const result = {
        simulatedMinutes: MINUTES,
        speed: SPEED,
        events: sent,
        calls: Math.ceil(sent / STATUSES.length),
        wallSeconds: Number(wallSeconds.toFixed(1)),
        frames: frames.length,
        frameMsP50: Number(pct(0.5).toFixed(1)),
        frameMsP95: Number(pct(0.95).toFixed(1)),
        frameMsP99: Number(pct(0.99).toFixed(1)),
        frameMsMax: Number((frames.at(-1) ?? 0).toFixed(1)),
        longTasks: probe.longTasks.length,
        longTaskMsMax: Number(Math.max(0, ...probe.longTasks).toFixed(1)),
        heapMbAfterFirstMinute: Number((heapAfterFirstMinute / 2 ** 20).toFixed(1)),
        heapMbAtEnd: Number((heapAtEnd / 2 ** 20).toFixed(1)),
        rowsShown: rows,
      };
      console.log('board stream:', JSON.stringify(result));
      writeFileSync(join(SCREENSHOTS, 'board-stream.json'), `${JSON.stringify(result, null, 2)}\n`);
      await screenshot(page, 'calls-board-stream');

      expect(sent).toBeGreaterThanOrEqual(MINUTES * CALLS_PER_MINUTE * STATUSES.length * 0.99);
      // The board keeps its newest rows only, whatever has arrived.
      expect(rows).toBeLessThanOrEqual(200);
      expect(rows).toBeGreaterThan(100);
      // Responsive: most frames at the display's pace, none frozen (bounds for a loaded 2-core CI box).
      expect(result.frameMsP95).toBeLessThan(100);
      expect(result.frameMsMax).toBeLessThan(2000);
      // Flat: ten minutes hold no more than the first one did, give or take the collector.
      expect(heapAtEnd - heapAfterFirstMinute).toBeLessThan(8 * 2 ** 20);
      expect(problems).toEqual([]);
      await context.close();
    });
  },
);
