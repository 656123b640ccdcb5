/**
 * The app contract and the room boundaries: the command table, its validators, window.trove
 * built from it, the gate, and the import rules (core/api has no node:*; the renderer imports
 * only types from core, and values only from the settings registry's plain modules; only
 * electron/ imports electron; each core/ room imports only the rooms the layer table puts
 * below it).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { buildTroveApi, COMMAND_CHANNEL_PREFIX, EVENT_CHANNEL_PREFIX, EVENT_NAMES, commandChannel } from '../../core/api/channels.ts';
import { COMMAND_NAMES, COMMANDS } from '../../core/api/commands.ts';
import { arr, check, int, obj, optional, str } from '../../core/api/validate.ts';
import { settingsPatch, SETTINGS_FIELDS } from '../../core/api/settings-payload.ts';
import { defaultSettings } from '../../core/api/settings.ts';
import { dispatch } from '../../core/app/gate.ts';
import { TroveError } from '../../core/errors.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

function files(dir: string, ext: RegExp): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    const rel = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...files(rel, ext));
    else if (ext.test(e.name)) out.push(rel);
  }
  return out;
}

/** `import … from 'x'` / `export … from 'x'` statements with their specifier. */
function imports(file: string): { statement: string; from: string }[] {
  const src = fs.readFileSync(path.join(ROOT, file), 'utf8');
  const re = /^\s*(import|export)\s+([^;]*?)\s+from\s+['"]([^'"]+)['"]/gms;
  const out: { statement: string; from: string }[] = [];
  for (let m = re.exec(src); m; m = re.exec(src)) out.push({ statement: `${m[1]} ${m[2]}`, from: m[3]! });
  for (const m of src.matchAll(/^\s*import\s+['"]([^'"]+)['"]/gm)) out.push({ statement: 'import', from: m[1]! });
  return out;
}

/**
 * The layer table of core/: which room (folder, or the root errors.ts) may import which. A room
 * imports only rooms below it, so there is no cycle: api is the contract and imports nothing;
 * errors is TroveError over api's catalogue; formats holds the wire-format helpers every room
 * shares (header fields, media types, digests, chunked coding, timestamps, byte sizes); the
 * storage, record and network rooms (storage, warc, fetch,
 * scope) stand on api alone; robots, extract and frontier on those; archive and replay read what
 * was written; export and crawl sit on everything they use; qa (replay scored, and the patch
 * crawl) on crawl and replay; app and cli are the two tops.
 */
const LAYERS: Record<string, readonly string[]> = {
  api: [],
  errors: ['api'],
  formats: ['api', 'errors'],
  storage: ['api', 'errors', 'formats'],
  warc: ['api', 'errors', 'formats'],
  fetch: ['api', 'errors', 'formats'],
  browser: ['api', 'errors', 'formats', 'fetch', 'warc'],
  scope: ['api', 'errors'],
  robots: ['api', 'errors', 'scope', 'fetch'],
  extract: ['api', 'errors', 'formats', 'scope', 'robots'],
  frontier: ['api', 'errors', 'storage', 'scope'],
  archive: ['api', 'errors', 'formats', 'storage', 'warc', 'scope', 'extract', 'frontier'],
  replay: ['api', 'errors', 'formats', 'storage', 'warc', 'scope', 'extract', 'archive'],
  export: ['api', 'errors', 'formats', 'storage', 'warc', 'scope', 'extract', 'archive', 'replay'],
  crawl: ['api', 'errors', 'formats', 'storage', 'warc', 'fetch', 'browser', 'scope', 'robots', 'extract', 'frontier', 'archive'],
  qa: ['api', 'errors', 'formats', 'storage', 'warc', 'fetch', 'browser', 'scope', 'robots', 'extract', 'frontier', 'archive', 'replay', 'crawl'],
  app: ['api', 'errors', 'formats', 'storage', 'warc', 'fetch', 'browser', 'scope', 'robots', 'extract', 'frontier', 'archive', 'replay', 'export', 'crawl', 'qa'],
  cli: ['api', 'errors', 'formats', 'storage', 'warc', 'fetch', 'browser', 'scope', 'robots', 'extract', 'frontier', 'archive', 'replay', 'export', 'crawl', 'qa'],
};

/** Single imports the table does not allow yet, each with the change that removes it. */
const KNOWN_EXCEPTIONS: readonly string[] = [
];

/** The room of a core/ file: its folder, or for a file at the root its name (errors). */
function roomOf(file: string): string {
  const parts = path.normalize(file).split(path.sep);
  return parts[1]!.replace(/\.ts$/, '');
}

describe('boundaries', () => {
  it('core/api imports no node:* module and nothing with run-time code outside itself', () => {
    for (const f of files('core/api', /\.ts$/)) {
      for (const i of imports(f)) {
        expect(i.from.startsWith('node:'), `${f} imports ${i.from}`).toBe(false);
        if (!i.from.startsWith('./')) expect(/^(import|export) type\b/.test(i.statement), `${f}: ${i.statement} from ${i.from}`).toBe(true);
      }
    }
  });

  it('the renderer imports only types from core, and values only from the settings registry and its plain helpers', () => {
    // The registry's rows, the units and the bounds are plain data and small pure functions the
    // form shows (labels, units, help, bounds); they import nothing outside core/api but each other.
    const PLAIN = ['core/api/settings-registry.ts', 'core/api/setting-units.ts', 'core/api/setting-bounds.ts', 'core/api/trove-version.ts', 'core/api/setting-choices.ts', 'core/api/capture-mode.ts'];
    for (const f of PLAIN) {
      for (const i of imports(f)) {
        if (/^(import|export) type\b/.test(i.statement)) continue;
        expect(PLAIN, `${f} imports ${i.from}`).toContain(path.join('core/api', i.from));
      }
    }
    for (const f of files('renderer/src', /\.(ts|svelte)$/)) {
      for (const i of imports(f)) {
        if (!i.from.includes('/core/')) continue;
        expect(i.from, f).toMatch(/\/core\/api\//);
        if (PLAIN.some((p) => i.from.endsWith(p.slice('core/api'.length)))) continue;
        expect(/^import type\b/.test(i.statement), `${f}: ${i.statement} from ${i.from}`).toBe(true);
      }
    }
  });

  it('only electron/ imports electron; core never does', () => {
    for (const f of [...files('core', /\.ts$/), ...files('renderer/src', /\.(ts|svelte)$/)]) {
      for (const i of imports(f)) expect(i.from === 'electron' || i.from.startsWith('electron/'), f).toBe(false);
    }
  });

  it('each core/ folder imports only the folders below it in the layer table', () => {
    const seen = new Set<string>();
    const wrong: string[] = [];
    for (const f of files('core', /\.ts$/)) {
      const from = roomOf(f);
      for (const i of imports(f)) {
        if (!i.from.startsWith('.')) continue;
        const target = path.join(path.dirname(f), i.from);
        const to = roomOf(target);
        if (to === from) continue;
        const edge = `${f} -> ${target}`;
        if (KNOWN_EXCEPTIONS.includes(edge)) {
          seen.add(edge);
          continue;
        }
        if (!LAYERS[from]?.includes(to)) wrong.push(`${from} -> ${to}: ${edge}`);
      }
    }
    expect(wrong).toEqual([]);
    // An exception the code no longer needs is taken out of the list, so the table stays true.
    expect(KNOWN_EXCEPTIONS.filter((e) => !seen.has(e))).toEqual([]);
  });

  it('every run-time dependency is imported by the shipped code (core/, electron/, bin/); test-only ones are devDependencies', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    const shipped = [...files('core', /\.ts$/), ...files('electron', /\.ts$/), ...files('bin', /\.js$/)];
    const used = new Set<string>();
    for (const f of shipped) {
      for (const i of imports(f)) used.add(i.from.startsWith('@') ? i.from.split('/').slice(0, 2).join('/') : i.from.split('/')[0]!);
    }
    expect(Object.keys(pkg.dependencies).filter((d) => !used.has(d))).toEqual([]);
  });

  it('the layer table itself has no cycle, so no two rooms can import each other', () => {
    const state = new Map<string, 'open' | 'done'>();
    const visit = (room: string, trail: string[]): void => {
      if (state.get(room) === 'done') return;
      expect(state.get(room), `cycle: ${[...trail, room].join(' -> ')}`).not.toBe('open');
      state.set(room, 'open');
      for (const next of LAYERS[room] ?? []) visit(next, [...trail, room]);
      state.set(room, 'done');
    };
    for (const room of Object.keys(LAYERS)) visit(room, []);
    expect(Object.keys(LAYERS).sort()).toEqual(fs.readdirSync(path.join(ROOT, 'core')).map((e) => e.replace(/\.ts$/, '')).sort());
  });
});

describe('the command table', () => {
  it('names every command namespace.verb and builds window.trove from it', () => {
    for (const name of COMMAND_NAMES) expect(name).toMatch(/^[a-z]+\.[a-zA-Z]+$/);
    const invoked: [string, unknown][] = [];
    const api = buildTroveApi(COMMAND_NAMES, EVENT_NAMES, {
      invoke: async (channel, payload) => {
        invoked.push([channel, payload]);
        return { ok: true, value: null };
      },
      subscribe: (channel) => {
        invoked.push([channel, 'subscribe']);
        return () => {};
      },
      pathForFile: () => null,
    });
    void api.library.list();
    void api.crawl.pause({ id: 'x' });
    api.on('crawl.snapshot', () => {});
    expect(invoked).toEqual([
      [commandChannel('library.list'), {}],
      [COMMAND_CHANNEL_PREFIX + 'crawl.pause', { id: 'x' }],
      [EVENT_CHANNEL_PREFIX + 'crawl.snapshot', 'subscribe'],
    ]);
    expect(() => api.on('nope' as 'menu', () => {})).toThrow(/unknown event/);
    expect(Object.isFrozen(api) && Object.isFrozen(api.crawl)).toBe(true);
    // Self-contained: it must survive being injected as source text (the e2e harness does).
    const rebuilt = new Function(`return (${buildTroveApi.toString()})`)() as typeof buildTroveApi;
    expect(Object.keys(rebuilt(COMMAND_NAMES, EVENT_NAMES, { invoke: async () => null, subscribe: () => () => {}, pathForFile: () => null })).sort()).toEqual(
      Object.keys(api).sort(),
    );
  });

  it('validates payloads strictly: types, bounds, unknown fields', () => {
    const v = obj({ id: str({ min: 1, max: 5 }), n: optional(int({ min: 0 })), tags: optional(arr(str(), { max: 2 })) });
    expect(check(v, { id: 'a' })).toEqual({ ok: true, value: { id: 'a' } });
    expect(check(v, { id: 'toolong' })).toMatchObject({ ok: false, error: { code: 'PAYLOAD_INVALID', details: { path: 'id' } } });
    expect(check(v, { id: 'a', n: 1.5 })).toMatchObject({ ok: false, error: { details: { path: 'n' } } });
    expect(check(v, { id: 'a', tags: ['x', 'y', 'z'] })).toMatchObject({ ok: false });
    expect(check(v, { id: 'a', extra: true })).toMatchObject({ ok: false, error: { message: 'extra: unknown field' } });
    expect(check(v, Object.assign(Object.create({ evil: 1 }), { id: 'a' }))).toMatchObject({ ok: false });
    expect(check(v, [])).toMatchObject({ ok: false });
  });

  it('accepts every crawl setting from the UI except file paths to read', () => {
    const all = Object.fromEntries(Object.entries(defaultSettings()).filter(([k]) => k !== 'robotsFile' && k !== 'dedupFrom'));
    expect(check(settingsPatch(), all)).toMatchObject({ ok: true });
    expect(SETTINGS_FIELDS).not.toContain('robotsFile');
    expect(SETTINGS_FIELDS).not.toContain('dedupFrom');
    expect(check(settingsPatch(), { dedupFrom: ['/etc'] })).toMatchObject({ ok: false });
    expect(check(settingsPatch(), { robotsFile: '/etc/passwd' })).toMatchObject({ ok: false, error: { message: /customRobots/ } });
    // Numbers pass the gate as typed (the core's settingsProblems reports a bad one next to its field);
    // anything that is neither a number nor short text is still refused here.
    expect(check(settingsPatch(), { concurrency: -1 })).toMatchObject({ ok: true });
    expect(check(settingsPatch(), { concurrency: 'x'.repeat(101) })).toMatchObject({ ok: false });
    expect(check(settingsPatch(), { concurrency: { n: 1 } })).toMatchObject({ ok: false });
    expect(check(settingsPatch(), { robots: 'sometimes' })).toMatchObject({ ok: false });
  });

  it('refuses library ids that could leave the library folder', () => {
    for (const id of ['..', '.', '../x', 'a/b', 'a\\b', '', '.hidden', 'x'.repeat(200)]) {
      expect(check(COMMANDS['library.open'].payload, { id }).ok, id).toBe(false);
    }
    expect(check(COMMANDS['library.open'].payload, { id: 'My crawl 2' }).ok).toBe(true);
  });
});

describe('the gate', () => {
  it('answers Results for every outcome', async () => {
    const handlers = {
      'library.list': () => [],
      'library.open': ({ id }: { id: string }) => {
        if (id === 'boom') throw new Error('disk on fire');
        throw new TroveError('LIBRARY_NOT_FOUND', `no ${id}`);
      },
    };
    expect(await dispatch(handlers, 'library.list', undefined)).toEqual({ ok: true, value: [] });
    expect(await dispatch(handlers, 'library.open', { id: 'x' })).toEqual({ ok: false, error: { code: 'LIBRARY_NOT_FOUND', message: 'no x' } });
    const logged: string[] = [];
    expect(await dispatch(handlers, 'library.open', { id: 'boom' }, { onInternalError: (n) => logged.push(n) })).toEqual({
      ok: false,
      error: { code: 'INTERNAL', message: 'library.open failed: disk on fire' },
    });
    expect(logged).toEqual(['library.open']);
    expect(await dispatch(handlers, 'replay.open', { archiveId: 'a', url: 'http://x/' })).toMatchObject({ ok: false, error: { code: 'NOT_AVAILABLE' } });
    expect(await dispatch(handlers, 'toString', {})).toMatchObject({ ok: false, error: { code: 'UNKNOWN_COMMAND' } });
  });
});
