import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

/**
 * Set by platform/build.mjs in the bundle: the built dashboard's folder relative to the bundle
 * (dist/dashboard). Undefined when running from source, where it is gateway/dashboard/dist.
 */
declare const __VOICE_DASHBOARD_DIR__: string | undefined;

export function dashboardDir(): string {
  if (typeof __VOICE_DASHBOARD_DIR__ === 'string') {
    return fileURLToPath(new URL(`${__VOICE_DASHBOARD_DIR__}/`, import.meta.url));
  }
  return fileURLToPath(new URL('../../dashboard/dist/', import.meta.url));
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.json': 'application/json',
};
/** Types worth compressing (images and fonts are compressed already). */
const TEXT = new Set(['.html', '.js', '.css', '.svg', '.json']);

export interface Asset {
  type: string;
  etag: string;
  identity: Buffer;
  gzip: Buffer | undefined;
  brotli: Buffer | undefined;
}

export interface DashboardAssets {
  index: Asset;
  /** By file name under assets/ (hashed names: cacheable for ever). */
  files: Map<string, Asset>;
}

function asset(file: string): Asset {
  const identity = readFileSync(file);
  const ext = extname(file);
  const text = TEXT.has(ext);
  return {
    type: TYPES[ext] ?? 'application/octet-stream',
    etag: `"${createHash('sha256').update(identity).digest('base64url').slice(0, 27)}"`,
    identity,
    // Compressed once at start: the bundle is small and never changes while the process runs.
    gzip: text ? gzipSync(identity, { level: 9 }) : undefined,
    brotli: text
      ? brotliCompressSync(identity, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } })
      : undefined,
  };
}

/** The built dashboard, read and compressed into memory; undefined when it was never built. */
export function loadDashboard(dir = dashboardDir()): DashboardAssets | undefined {
  const index = join(dir, 'index.html');
  if (!existsSync(index)) return undefined;
  const files = new Map<string, Asset>();
  const assets = join(dir, 'assets');
  if (existsSync(assets)) {
    for (const name of readdirSync(assets)) files.set(name, asset(join(assets, name)));
  }
  return { index: asset(index), files };
}

/** The body to send for the client's Accept-Encoding: brotli, then gzip, then as is. */
export function encodingFor(
  file: Asset,
  acceptEncoding: string | undefined,
): { body: Buffer; encoding: string | undefined } {
  const accepted = (acceptEncoding ?? '')
    .split(',')
    .map((part) => part.trim().split(';'))
    .filter(([, q]) => !q || !/^\s*q=0(\.0*)?\s*$/.test(q))
    .map(([name]) => name?.trim().toLowerCase());
  if (file.brotli && accepted.includes('br')) return { body: file.brotli, encoding: 'br' };
  if (file.gzip && accepted.includes('gzip')) return { body: file.gzip, encoding: 'gzip' };
  return { body: file.identity, encoding: undefined };
}
