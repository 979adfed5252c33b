import type { Page } from 'playwright-core';

/** What the page recorded: every interval between animation frames, and every long task, ms. */
export interface PageProbe {
  frames: number[];
  longTasks: number[];
}

/**
 * Run in the page: records the time between consecutive animation frames (what a user sees as jank:
 * 16.7 ms at 60 Hz when the page keeps up) and the long tasks (over 50 ms) Chromium reports. Source
 * text rather than a function: tsx's transform would name the function's inner closures with a
 * helper the page does not have.
 */
const PROBE = `(() => {
  const probe = { frames: [], longTasks: [] };
  window.__boardProbe = probe;
  let last = 0;
  const frame = (now) => {
    if (last) probe.frames.push(now - last);
    last = now;
    requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) probe.longTasks.push(entry.duration);
  }).observe({ type: 'longtask' });
})()`;

export async function startProbe(page: Page): Promise<void> {
  await page.evaluate(PROBE);
}

/** What the page recorded since the probe started or was last taken; it starts over. */
export function takeProbe(page: Page): Promise<PageProbe> {
  return page.evaluate(`(() => {
    const probe = window.__boardProbe;
    const taken = { frames: probe.frames, longTasks: probe.longTasks };
    probe.frames = [];
    probe.longTasks = [];
    return taken;
  })()`) as Promise<PageProbe>;
}
