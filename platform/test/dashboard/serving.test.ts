import { request } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { infraModes } from '@voice/shared/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../support/harness';

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** A GET as a browser sends it, the body as it came over the wire (fetch would decompress it). */
function get(url: string, headers: Record<string, string> = {}): Promise<Raw> {
  return new Promise((resolve, reject) => {
    request(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
      );
      res.on('error', reject);
    })
      .on('error', reject)
      .end();
  });
}

/** The first-load JavaScript budget of the issue (#29): compressed, as a browser gets it. */
const FIRST_LOAD_JS_BUDGET = 500 * 1024;

describe.each(infraModes())('dashboard files (%s)', (mode) => {
  let t: TestPlatform;
  beforeAll(async () => {
    t = await startTestPlatform(mode);
  });
  afterAll(async () => t?.stop());

  it('serves the page at /dashboard and every path under it, uncached, with a strict CSP', async () => {
    for (const path of [
      '/dashboard',
      '/dashboard/',
      '/dashboard/calls',
      '/dashboard/calls/0b7c0d5e-1d5f-4f58-a1f6-5e2a0f1b3c4d',
    ]) {
      const page = await get(`${t.url}${path}`);
      expect(page.status, path).toBe(200);
      expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(page.headers['cache-control']).toBe('no-cache');
      expect(page.body.toString()).toContain('<div id="app"></div>');
      const host = new URL(t.url).host;
      const csp = String(page.headers['content-security-policy']);
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("script-src 'self';");
      expect(csp).toContain(`connect-src 'self' ws://${host} wss://${host}`);
      expect(csp).toContain(`media-src 'self' ${new URL(t.url).origin}`);
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).not.toMatch(/unsafe|\*/);
      // No inline script for the CSP to allow: every script is a file of the bundle.
      expect(page.body.toString()).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/);
    }
  });

  it('serves hashed assets compressed and cacheable for ever, and 404s unknown ones', async () => {
    const page = (await get(`${t.url}/dashboard`)).body.toString();
    const script = /src="(\/dashboard\/assets\/[^"]+\.js)"/.exec(page)?.[1];
    expect(script).toBeDefined();
    const plain = await get(`${t.url}${script}`);
    expect(plain.status).toBe(200);
    expect(plain.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(plain.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(plain.headers['content-encoding']).toBeUndefined();
    const br = await get(`${t.url}${script}`, { 'accept-encoding': 'gzip, deflate, br' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers.vary).toBe('accept-encoding');
    expect(brotliDecompressSync(br.body).equals(plain.body)).toBe(true);
    const gzip = await get(`${t.url}${script}`, { 'accept-encoding': 'gzip' });
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gzip.body).equals(plain.body)).toBe(true);
    const again = await get(`${t.url}${script}`, { 'if-none-match': String(plain.headers.etag) });
    expect(again.status).toBe(304);

    const missing = await get(`${t.url}/dashboard/assets/index-nothere.js`);
    expect(missing.status).toBe(404);
    expect(JSON.parse(missing.body.toString())).toMatchObject({
      success: false,
      detail: 'No such dashboard asset',
    });
  });

  it(`keeps the first load under ${FIRST_LOAD_JS_BUDGET / 1024} KB of compressed JavaScript`, async () => {
    const page = (await get(`${t.url}/dashboard`)).body.toString();
    const scripts = [...page.matchAll(/(?:src|href)="(\/dashboard\/assets\/[^"]+\.js)"/g)].map((m) => m[1]!);
    expect(scripts.length).toBeGreaterThan(0);
    let gzipBytes = 0;
    for (const script of new Set(scripts)) {
      gzipBytes += (await get(`${t.url}${script}`, { 'accept-encoding': 'gzip' })).body.length;
    }
    expect(gzipBytes).toBeLessThan(FIRST_LOAD_JS_BUDGET);
  });
});
