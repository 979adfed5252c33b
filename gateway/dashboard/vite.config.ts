import { defineConfig } from 'vite';

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
});
