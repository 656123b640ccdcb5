import { defineConfig } from 'vitest/config';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { svelteTesting } from '@testing-library/svelte/vite';

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
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
