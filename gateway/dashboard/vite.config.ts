import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import { SOURCE_HASH_FILE, sourceHash } from './source-hash';

const root = fileURLToPath(new URL('.', import.meta.url));

// Served by the gateway under /dashboard/ (gateway/src/dashboard): hashed assets, no inline script
// (the page's Content-Security-Policy allows scripts from 'self' only).
export default defineConfig({
  base: '/dashboard/',
  esbuild: { jsx: 'automatic', jsxImportSource: 'preact' },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    reportCompressedSize: true,
  },
  plugins: [
    {
      name: 'voice-source-hash',
      generateBundle() {
        this.emitFile({ type: 'asset', fileName: SOURCE_HASH_FILE, source: `${sourceHash(root)}\n` });
      },
    },
  ],
});
