/// <reference types="vitest/config" />
import { defineConfig } from 'vite';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';

const goServer = 'http://127.0.0.1:8080';
const testing = process.env.VITEST !== undefined;

// The app is written against React's API and renders with Preact (through
// preact/compat): a tenth of React DOM's weight, so a page's first script
// fits its budget (e2e/page-weight.test.mjs). Every import of React, the
// app's and its libraries' (React Router, Lucide, Testing Library), goes to
// Preact; JSX compiles to Preact's runtime.
const preact = [
  { find: /^react$/, replacement: 'preact/compat' },
  { find: /^react-dom$/, replacement: 'preact/compat' },
  { find: /^react-dom\/client$/, replacement: 'preact/compat/client' },
  { find: /^react\/jsx-runtime$/, replacement: 'preact/jsx-runtime' },
  { find: /^react\/jsx-dev-runtime$/, replacement: 'preact/jsx-dev-runtime' },
];

export default defineConfig({
  resolve: {
    alias: [
      ...preact,
      ...(testing
        ? [
            // React's act semantics on Preact (see the file)
            { find: /^react-dom\/test-utils$/, replacement: fileURLToPath(new URL('./test/preact-act.ts', import.meta.url)) },
            // Testing Library's ES module build: its CommonJS one would
            // require react-dom past the aliases above
            {
              find: /^@testing-library\/react$/,
              replacement: fileURLToPath(
                new URL('./node_modules/@testing-library/react/dist/@testing-library/react.esm.js', import.meta.url),
              ),
            },
          ]
        : []),
    ],
    // the tests load packages by their ES module builds too, as the bundle does
    ...(testing ? { conditions: ['module', 'browser', 'development|production'] } : {}),
  },
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
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
    // one copy of Preact for the app, its libraries and the tests
    server: { deps: { inline: [/preact/, /react-router/, /lucide-react/, /@testing-library\/react/] } },
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
