/// <reference types="vitest/config" />
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { availableParallelism } from 'node:os';

const goServer = 'http://127.0.0.1:8080';

export default defineConfig({
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    assetsDir: 'assets',
    // Swagger UI is a large lazy chunk of its own; the main bundle stays small.
    chunkSizeWarningLimit: 1600,
  },
  server: {
    proxy: {
      '/api': {
        target: goServer,
        // /api/docs is an app route: let the dev server answer it with index.html.
        bypass: (req) => (req.url === '/api/docs' || req.url?.startsWith('/api/docs?') ? '/index.html' : undefined),
      },
      '/mcp': { target: goServer },
    },
  },
  test: {
    environment: 'jsdom',
    include: ['test/**/*.test.{ts,tsx}'],
    setupFiles: ['test/setup.ts'],
    restoreMocks: true,
    // At least two workers, even on a two-core machine where the default is
    // one: 82 s there instead of 119 s, with both cores busy. Files stay isolated: sharing one jsdom and
    // module cache took 30 s, but a file then saw another's leftovers (a
    // keyboard shortcut test failed on CI).
    maxWorkers: Math.max(2, availableParallelism()),
    // A bound on a hung test, not a measure: the longest journeys through a
    // page take 3-5 s when CI's machine is busy, and 5 s (the default)
    // failed them there.
    testTimeout: 20000,
  },
});
