import { defineConfig } from 'vitest/config';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { svelteTesting } from '@testing-library/svelte/vite';

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Two test files at a time on CI's two cores (vitest's default is cores − 1, one): most files
    // wait on Chromium, servers and child processes, so the whole suite took 15.5 min this way
    // against about 20 with one (2026-12-05), inside CI's 25-minute budget with room to grow.
    maxWorkers: 2,
    // The JSON report lets .ci/run print one plain "N passed, N failed" line.
    reporters: ['default', ['json', { outputFile: 'test-artifacts/vitest-results.json' }]],
    projects: [
      {
        extends: true,
        test: { name: 'node', include: ['test/**/*.test.ts'], exclude: ['test/renderer/**', '**/node_modules/**'] },
      },
      {
        // Renderer state classes (.svelte.ts runes) and components: compiled by the Svelte plugin,
        // resolved with the browser condition; each file picks happy-dom with a
        // `// @vitest-environment happy-dom` comment.
        extends: true,
        plugins: [svelte({ configFile: false }), svelteTesting()],
        test: { name: 'renderer', include: ['test/renderer/**/*.test.ts'] },
      },
    ],
  },
});
