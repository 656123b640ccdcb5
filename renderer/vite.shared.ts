/**
 * The renderer's Vite settings, shared by electron.vite.config.ts and the e2e harness (which
 * builds the same renderer with plain Vite and serves it to Chromium).
 */
import { fileURLToPath } from 'node:url';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import type { UserConfig } from 'vite';

export const RENDERER_ROOT = fileURLToPath(new URL('.', import.meta.url));

export function rendererConfig(): UserConfig {
  return {
    root: RENDERER_ROOT,
    base: './',
    plugins: [svelte({ configFile: false })],
    build: {
      target: 'chrome130',
      chunkSizeWarningLimit: 2000,
      reportCompressedSize: false,
    },
  };
}
