/**
 * electron-vite: main (ESM, Node target), preload (CommonJS: sandboxed preloads cannot be ESM)
 * and the Svelte renderer. Dependencies (better-sqlite3 and its native binary, undici, …) stay
 * external and ship in node_modules (electron-builder unpacks the .node binary from the asar).
 *
 * The core starts worker threads from `new URL('./x-worker.ts', import.meta.url)` so that plain
 * Node 24 (tests, CLI) can run the TypeScript directly. `workerEntries` turns each of those into
 * a bundled chunk of its own and points the URL at it, so the same source works when bundled.
 */
import path from 'node:path';
import { defineConfig } from 'electron-vite';
import type { Plugin } from 'vite';
import { rendererConfig, RENDERER_ROOT } from './renderer/vite.shared.ts';

const WORKER_URL = /new URL\((['"])\.\/([\w-]+-worker)\.ts\1,\s*import\.meta\.url\)/g;
const PLACEHOLDER = /__TROVE_WORKER_(\w+)__/g;

function workerEntries(): Plugin {
  return {
    name: 'trove:worker-entries',
    enforce: 'pre',
    transform(code, id) {
      if (!id.includes(`${path.sep}core${path.sep}`) || !code.includes('-worker.ts')) return null;
      let changed = false;
      const out = code.replace(WORKER_URL, (_m, _q, name: string) => {
        changed = true;
        const ref = this.emitFile({ type: 'chunk', id: path.join(path.dirname(id), `${name}.ts`), fileName: `${name}.js` });
        return `new URL(__TROVE_WORKER_${ref}__, import.meta.url)`;
      });
      return changed ? { code: out, map: null } : null;
    },
    renderChunk(code, chunk) {
      if (!code.includes('__TROVE_WORKER_')) return null;
      return {
        code: code.replace(PLACEHOLDER, (_m, ref: string) => {
          const file = this.getFileName(ref);
          let rel = path.posix.relative(path.posix.dirname(chunk.fileName), file);
          if (!rel.startsWith('.')) rel = `./${rel}`;
          return JSON.stringify(rel);
        }),
        map: null,
      };
    },
  };
}

const renderer = rendererConfig();

export default defineConfig({
  main: {
    plugins: [workerEntries()],
    build: {
      outDir: 'out/main',
      externalizeDeps: true,
      rolldownOptions: {
        input: { index: path.resolve('electron/main/index.ts') },
        external: ['better-sqlite3'],
      },
    },
  },
  preload: {
    build: {
      outDir: 'out/preload',
      rolldownOptions: {
        input: { index: path.resolve('electron/preload/index.ts') },
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: {
    ...renderer,
    root: RENDERER_ROOT,
    build: {
      ...renderer.build,
      outDir: path.resolve('out/renderer'),
      rolldownOptions: { input: path.join(RENDERER_ROOT, 'index.html') },
    },
  },
});
