/**
 * The renderer's Vite settings, shared by electron.vite.config.ts and the e2e harness (which
 * builds the same renderer with plain Vite and serves it to Chromium).
 */
import { fileURLToPath } from 'node:url';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import type { Plugin, UserConfig } from 'vite';

export const RENDERER_ROOT = fileURLToPath(new URL('.', import.meta.url));

/**
 * The desktop app draws replay in a native view, so its CSP allows no frames at all. The browser
 * harness draws replay in an iframe (whose requests it intercepts): only its build allows
 * http(s) frames.
 */
function replayFrames(): Plugin {
  return {
    name: 'trove:replay-frames',
    transformIndexHtml: (html) => html.replace("frame-src 'none'", 'frame-src http: https:'),
  };
}

export function rendererConfig(opts: { replayFrames?: boolean } = {}): UserConfig {
  return {
    root: RENDERER_ROOT,
    base: './',
    plugins: [svelte({ configFile: false }), ...(opts.replayFrames ? [replayFrames()] : [])],
    build: {
      target: 'chrome130',
      chunkSizeWarningLimit: 2000,
      reportCompressedSize: false,
    },
  };
}
