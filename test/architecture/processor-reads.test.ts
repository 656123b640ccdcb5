/**
 * Each processor of the URI chain (core/crawl/chain/) declares what it reads from the crawl's
 * context (`reads`: settings keys and services, crawl-uri.ts ProcessorReads). This test reads each
 * processor file's source and checks the declaration both ways: every `ctx.settings.X` and `ctx.Y`
 * the processor's code uses is declared, and everything declared is used.
 *
 * What counts as the processor's code, traced statically from its file (comments left out):
 *   - the whole file: one processor per file, and the file's own helpers are its code;
 *   - a function or class imported from core/ that the file hands `ctx` to (`f(ctx, …)`,
 *     `new C(ctx)`), read the same way, and what it hands `ctx` to in turn; a call to another
 *     processor (`fetchHttp.process(ctx, curi)`) brings in that processor's reads;
 *   - `ctx.settings` handed whole to a function (`hostSettings(ctx.settings, …)`): the keys its
 *     parameter's type names when it is a `Pick<CrawlSettings, …>`, else the `param.X` its body
 *     reads.
 * The context is named `ctx` (or `this.ctx` in a class) wherever it is passed; the test fails on
 * a helper that names it otherwise, or on `ctx.settings` handed on in a way it cannot follow, so
 * an unfollowed read shows up as a failure rather than as a read missed.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import type { Processor } from '../../core/crawl/chain/crawl-uri.ts';
import { buildUriChain } from '../../core/crawl/chain/uri-chain.ts';
import { fetchBrowser } from '../../core/crawl/chain/fetch-browser.ts';
import type { TabPool } from '../../core/browser/tab-pool.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CHAIN = 'core/crawl/chain';

interface Reads {
  settings: Set<string>;
  services: Set<string>;
}

/** Source with comments blanked, so prose naming `ctx.settings` is not a read. */
function code(src: string): string {
  return src.replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, ' ')).replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');
}

function source(file: string): string {
  return fs.readFileSync(path.join(ROOT, file), 'utf8');
}

/** Relative imports of a file: local name → the file it comes from (repository-relative). */
function importsOf(file: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of source(file).matchAll(/import\s+(?:type\s+)?\{([^}]*)\}\s*from\s*'(\.[^']+)'/g)) {
    let target = path.posix.normalize(path.posix.join(path.posix.dirname(file), m[2]!));
    if (!target.endsWith('.ts')) target += '.ts';
    for (const part of m[1]!.split(',')) {
      const name = part.replace(/^\s*type\s+/, '').trim();
      if (!name) continue;
      const [imported, local] = name.split(/\s+as\s+/);
      out.set((local ?? imported)!.trim(), target);
    }
  }
  return out;
}

/** A top-level function or class declared in a file, by name (exported or not). */
function declaration(file: string, name: string): ts.FunctionDeclaration | ts.ClassDeclaration {
  const sf = ts.createSourceFile(file, source(file), ts.ScriptTarget.Latest, true);
  for (const s of sf.statements) {
    if ((ts.isFunctionDeclaration(s) || ts.isClassDeclaration(s)) && s.name?.text === name) return s;
  }
  throw new Error(`${file}: no function or class ${name} (a helper handed ctx must be a top-level declaration to be traced)`);
}

/** Whether `name` is declared at the top level of the file itself (then it is part of the file's code). */
function declaredIn(file: string, name: string): boolean {
  return new RegExp(`^(?:export\\s+)?(?:async\\s+)?(?:function\\s*\\*?|class|const|let)\\s+${name}\\b`, 'm').test(source(file));
}

function add(into: Reads, from: Reads): void {
  for (const k of from.settings) into.settings.add(k);
  for (const k of from.services) into.services.add(k);
}

const CTX = String.raw`(?:this\.)?ctx`;

/**
 * The reads of a piece of code in `file`: direct, and through what it hands `ctx` or
 * `ctx.settings` to. `wholeFile`: the code is the whole file, so the file's own functions are in it.
 */
function readsOfCode(file: string, text: string, seen: Set<string>, wholeFile: boolean): Reads {
  const r: Reads = { settings: new Set(), services: new Set() };
  const body = code(text);
  for (const m of body.matchAll(new RegExp(String.raw`\b${CTX}\.settings\.(\w+)`, 'g'))) r.settings.add(m[1]!);
  for (const m of body.matchAll(new RegExp(String.raw`\b${CTX}\.(\w+)`, 'g'))) if (m[1] !== 'settings') r.services.add(m[1]!);
  const imports = importsOf(file);

  // `ctx` handed on: f(ctx, …), new C(ctx), p.process(ctx, …). (`process(ctx, curi) {` is the processor's own method.)
  for (const m of body.matchAll(new RegExp(String.raw`(?:\bnew\s+)?\b(\w+(?:\.\w+)*)\(\s*${CTX}\s*[,)]`, 'g'))) {
    const callee = m[1]!;
    if (callee === 'process' || callee === 'shouldProcess') continue;
    const processorCall = /^(\w+)\.process$/.exec(callee);
    if (processorCall) {
      const from = imports.get(processorCall[1]!);
      if (!from) throw new Error(`${file}: ${callee}(ctx) calls a processor not imported from a file`);
      add(r, readsOfProcessorFile(from, seen));
      continue;
    }
    if (callee.includes('.')) throw new Error(`${file}: cannot follow ctx handed to ${callee}`);
    if (declaredIn(file, callee)) {
      if (!wholeFile) add(r, readsOfHelper(file, callee, seen));
      continue;
    }
    const from = imports.get(callee);
    if (!from) throw new Error(`${file}: cannot find where ${callee}, handed ctx, comes from`);
    add(r, readsOfHelper(from, callee, seen));
  }

  // `ctx.settings` handed whole: f(ctx.settings, …).
  const whole = [...body.matchAll(new RegExp(String.raw`\b${CTX}\.settings\b(?!\.)`, 'g'))].length;
  const calls = [...body.matchAll(new RegExp(String.raw`\b(\w+)\(\s*${CTX}\.settings\s*[,)]`, 'g'))];
  if (calls.length !== whole) throw new Error(`${file}: ctx.settings is handed on in a way this test cannot follow`);
  for (const m of calls) {
    const from = declaredIn(file, m[1]!) ? file : imports.get(m[1]!);
    if (!from) throw new Error(`${file}: cannot find where ${m[1]}, handed ctx.settings, comes from`);
    for (const k of settingsParamReads(from, m[1]!)) r.settings.add(k);
  }
  return r;
}

/** A helper handed `ctx`: its own code, read the same way (each traced once per processor). */
function readsOfHelper(file: string, name: string, seen: Set<string>): Reads {
  const key = `${file}:${name}`;
  if (seen.has(key)) return { settings: new Set(), services: new Set() };
  seen.add(key);
  const decl = declaration(file, name);
  if (ts.isFunctionDeclaration(decl)) {
    const ctxParams = decl.parameters.filter((p) => /^(?:CrawlContext|Pick<CrawlContext,.*>)$/s.test(p.type?.getText() ?? '')).map((p) => p.name.getText());
    if (ctxParams.length !== 1 || ctxParams[0] !== 'ctx') throw new Error(`${key}: the context parameter must be one, named ctx (found ${ctxParams.join(', ') || 'none'})`);
  }
  return readsOfCode(file, decl.getText(), seen, false);
}

/** The settings keys a function reads through the parameter `ctx.settings` is handed to (its first). */
function settingsParamReads(file: string, name: string): string[] {
  const decl = declaration(file, name);
  if (!ts.isFunctionDeclaration(decl)) throw new Error(`${file}:${name} is handed ctx.settings but is not a function`);
  const param = decl.parameters[0]!;
  const type = param.type?.getText() ?? '';
  const pick = /^Pick<CrawlSettings,\s*([^>]+)>$/.exec(type);
  if (pick) return [...pick[1]!.matchAll(/'(\w+)'/g)].map((m) => m[1]!);
  if (type !== 'CrawlSettings') throw new Error(`${file}:${name}: ctx.settings goes to a parameter of type ${type || '(none)'}`);
  const p = param.name.getText();
  return [...new Set([...code(decl.body!.getText()).matchAll(new RegExp(String.raw`\b${p}\.(\w+)`, 'g'))].map((m) => m[1]!))];
}

const processorFiles = new Map<string, Reads>();

/** A processor file's reads: its whole code and what it hands ctx to. */
function readsOfProcessorFile(file: string, seen = new Set<string>()): Reads {
  const known = processorFiles.get(file);
  if (known) return known;
  const r = readsOfCode(file, source(file), seen, true);
  processorFiles.set(file, r);
  return r;
}

/** Every processor object of the chain folder, with the file it is in. */
async function processors(): Promise<{ file: string; p: Processor }[]> {
  const out: { file: string; p: Processor }[] = [];
  for (const name of fs.readdirSync(path.join(ROOT, CHAIN)).sort()) {
    if (!name.endsWith('.ts')) continue;
    const file = `${CHAIN}/${name}`;
    const mod = (await import(pathToFileURL(path.join(ROOT, file)).href)) as Record<string, unknown>;
    const found: Processor[] = [];
    for (const v of Object.values(mod)) {
      if (v && typeof v === 'object' && typeof (v as Processor).process === 'function' && typeof (v as Processor).name === 'string') found.push(v as Processor);
    }
    if (mod.fetchBrowser === fetchBrowser) found.push(fetchBrowser({} as TabPool));
    expect(found.length, `${file}: one processor per file`).toBeLessThanOrEqual(1);
    if (found[0]) out.push({ file, p: found[0] });
  }
  return out;
}

const sorted = (xs: Iterable<string>) => [...xs].sort();

describe('processors declare what they read', () => {
  it('finds every processor of the chain, the browser fetch included', async () => {
    const chain = buildUriChain({ browser: fetchBrowser({} as TabPool) });
    const inChain = new Set([...chain.preconditions, ...chain.processors, ...chain.disposition].map((p) => p.name));
    const found = (await processors()).map((x) => x.p.name);
    for (const name of inChain) expect(found).toContain(name);
    expect(found).toEqual(expect.arrayContaining(['fetch-http', 'fetch-robots-txt', 'fetch-browser']));
    expect(found.length).toBeGreaterThanOrEqual(inChain.size + 3);
  });

  it('traces reads through helpers handed ctx or ctx.settings (so a match means something)', () => {
    // recheck-scope: queueNote(ctx, …) reads ctx.queueNotes; hostSettings(ctx.settings, …) the host keys.
    const scope = readsOfProcessorFile(`${CHAIN}/recheck-scope.ts`);
    expect(scope.services.has('queueNotes')).toBe(true);
    expect(scope.settings.has('userAgent')).toBe(true);
    expect(scope.settings.has('overrides')).toBe(true);
    // fetch-robots-txt: requestHeaders(ctx, …) reads settings.operator; robotsSitemapOutlinks's Pick, settings.sitemaps.
    const robots = readsOfProcessorFile(`${CHAIN}/fetch-robots-txt.ts`);
    expect(robots.settings.has('operator')).toBe(true);
    expect(robots.settings.has('sitemaps')).toBe(true);
    // fetch-browser: new BrowserRecordSink(ctx), and fetchHttp.process(ctx, curi) when the tab fails.
    const browser = readsOfProcessorFile(`${CHAIN}/fetch-browser.ts`);
    expect(browser.services.has('robots')).toBe(true);
    expect(browser.services.has('prior')).toBe(true);
    expect(browser.services.has('pendingOriginals')).toBe(true);
  });

  it("each processor's declaration is exactly what its code reads", async () => {
    const wrong: string[] = [];
    for (const { file, p } of await processors()) {
      const used = readsOfProcessorFile(file);
      const declared = { settings: new Set<string>(p.reads.settings), services: new Set<string>(p.reads.services) };
      for (const kind of ['settings', 'services'] as const) {
        const missing = sorted([...used[kind]].filter((k) => !declared[kind].has(k)));
        const unused = sorted([...declared[kind]].filter((k) => !used[kind].has(k)));
        if (missing.length) wrong.push(`${file} (${p.name}): reads ${kind} it does not declare: ${missing.join(', ')}`);
        if (unused.length) wrong.push(`${file} (${p.name}): declares ${kind} it does not read: ${unused.join(', ')}`);
      }
    }
    expect(wrong).toEqual([]);
  });
});
