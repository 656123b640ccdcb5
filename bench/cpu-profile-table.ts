/**
 * Reads the `.cpuprofile` files `node --cpu-prof` writes (one per thread: the crawl's main thread
 * and each extraction worker) and prints where the CPU went: self time by module (a Trove source
 * file, a package, Node's own internals, V8's garbage collector) and the top functions by self
 * time. The bench prints figures, not profiles: the tables go into commit messages before and
 * after a change, the profiles themselves are thrown away.
 *
 * A .cpuprofile is V8's format (Chrome DevTools Protocol, Profiler.Profile): a call tree of nodes,
 * each with its call frame, and a list of samples (node ids) with the time since the previous
 * sample. A node's self time is the sum of the deltas of the samples that landed on it. The
 * sampler runs on wall-clock time per thread: on a loaded machine a thread that waits for a core
 * is charged to wherever it stopped, so the sampled total can exceed the CPU time the process
 * used. Compare shares and before/after ratios from runs on a similar load, not absolute figures.
 *
 * Run on its own: node bench/cpu-profile-table.ts <dir-of-cpuprofiles> [top-n]
 */
import fs from 'node:fs';
import path from 'node:path';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples?: number[];
  timeDeltas?: number[];
}

export interface ProfileRow {
  name: string;
  ms: number;
  /** Of which on the main thread (the rest: worker threads). */
  mainMs: number;
}

export interface ProfileSummary {
  /** One entry per profile file, main thread first. */
  threads: { file: string; main: boolean; ms: number }[];
  totalMs: number;
  byModule: ProfileRow[];
  byFunction: ProfileRow[];
}

/** A short name for where a function lives: `core/extract/html-links.ts`, `parse5`, `node:internal`, `(gc)`. */
export function moduleOf(url: string, functionName: string): string {
  if (url === '') {
    // V8's synthetic nodes: (garbage collector), (program) (native code and the VM), (idle).
    if (functionName.startsWith('(')) return functionName;
    return '(native)';
  }
  if (url.startsWith('node:')) return url.startsWith('node:internal') ? 'node:internal' : url;
  const nm = url.lastIndexOf('/node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + '/node_modules/'.length).split('/');
    return rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]!;
  }
  const m = /\/((?:core|bench|bin|test)\/.*)$/.exec(url.replace(/^file:\/\//, ''));
  return m ? m[1]! : path.basename(url);
}

function selfTimes(profile: CpuProfile): Map<number, number> {
  const self = new Map<number, number>();
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  for (let i = 0; i < samples.length; i++) {
    // The delta at i+1 is the time the sample at i stood for (V8's own convention in DevTools).
    const us = deltas[i + 1] ?? 0;
    self.set(samples[i]!, (self.get(samples[i]!) ?? 0) + us);
  }
  return self;
}

/** Node names profiles CPU.<date>.<time>.<pid>.<thread id>.<seq>.cpuprofile; thread 0 is the main thread. */
function isMainThread(file: string): boolean {
  return file.split('.').at(-3) === '0';
}

export function summarizeProfiles(dir: string, opts: { exclude?: string[] } = {}): ProfileSummary {
  const byModule = new Map<string, [number, number]>();
  const byFunction = new Map<string, [number, number]>();
  const threads: { file: string; main: boolean; ms: number }[] = [];
  const add = (m: Map<string, [number, number]>, key: string, us: number, main: boolean) => {
    const e = m.get(key) ?? [0, 0];
    e[0] += us;
    if (main) e[1] += us;
    m.set(key, e);
  };
  let totalUs = 0;
  for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.cpuprofile')).sort()) {
    const profile = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')) as CpuProfile;
    const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
    const main = isMainThread(file);
    let threadUs = 0;
    for (const [id, us] of selfTimes(profile)) {
      const frame = nodes.get(id)!.callFrame;
      // (idle) is a thread waiting for work: no CPU.
      if (frame.functionName === '(idle)') continue;
      const mod = moduleOf(frame.url, frame.functionName);
      if (opts.exclude?.some((e) => mod.startsWith(e))) continue;
      threadUs += us;
      add(byModule, mod, us, main);
      add(byFunction, `${frame.functionName || '(anonymous)'} ${mod}${frame.url ? `:${frame.lineNumber + 1}` : ''}`, us, main);
    }
    threads.push({ file, main, ms: threadUs / 1000 });
    totalUs += threadUs;
  }
  const rows = (m: Map<string, [number, number]>) =>
    [...m.entries()].map(([name, [us, mainUs]]) => ({ name, ms: us / 1000, mainMs: mainUs / 1000 })).sort((a, b) => b.ms - a.ms);
  threads.sort((a, b) => Number(b.main) - Number(a.main) || b.ms - a.ms);
  return { threads, totalMs: totalUs / 1000, byModule: rows(byModule), byFunction: rows(byFunction) };
}

/**
 * Where the CPU went by phase of a URI's work: each sample is charged to the nearest frame up its
 * stack that is Trove's own (a core/ file), and that file to a phase by `phaseOf`; the garbage
 * collector is a phase of its own, and samples with no Trove frame above them (module loading,
 * the event loop, libuv callbacks) are `outside Trove's code`. Self-time tables say which
 * function burns the cycles (zlib, a native write); this says which step of the crawl asked.
 */
export function summarizePhases(dir: string, phaseOf: (module: string) => string): { phase: string; ms: number }[] {
  const byPhase = new Map<string, number>();
  for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'))) {
    const profile = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')) as CpuProfile;
    const parent = new Map<number, number>();
    for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
    const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
    const phaseOfNode = new Map<number, string>();
    const resolve = (id: number): string => {
      const known = phaseOfNode.get(id);
      if (known !== undefined) return known;
      const frame = nodes.get(id)!.callFrame;
      const mod = moduleOf(frame.url, frame.functionName);
      let phase: string;
      if (mod === '(garbage collector)') phase = 'garbage collector';
      else if (mod.startsWith('core/')) phase = phaseOf(mod);
      else {
        const up = parent.get(id);
        phase = up === undefined ? "outside Trove's code" : resolve(up);
      }
      phaseOfNode.set(id, phase);
      return phase;
    };
    for (const [id, us] of selfTimes(profile)) {
      if (nodes.get(id)!.callFrame.functionName === '(idle)') continue;
      const phase = resolve(id);
      byPhase.set(phase, (byPhase.get(phase) ?? 0) + us / 1000);
    }
  }
  return [...byPhase.entries()].map(([phase, ms]) => ({ phase, ms })).sort((a, b) => b.ms - a.ms);
}

/** Markdown tables (they go into a commit message or bench/README.md as they are). */
export function formatSummary(s: ProfileSummary, top = 20): string {
  const pct = (ms: number) => `${((100 * ms) / s.totalMs).toFixed(1)}%`;
  const lines: string[] = [];
  const threads = s.threads.map((t) => `${t.main ? 'main' : 'worker'} ${(t.ms / 1000).toFixed(2)} s`).join(', ');
  lines.push(`Sampled ${(s.totalMs / 1000).toFixed(2)} s over ${s.threads.length} threads (${threads}).`);
  const row = (name: string, r: ProfileRow) => `| ${name.replace(/\|/g, '\\|')} | ${r.ms.toFixed(0)} | ${r.mainMs.toFixed(0)} | ${(r.ms - r.mainMs).toFixed(0)} | ${pct(r.ms)} |`;
  lines.push('', '| module | self ms | main | workers | share |', '|---|---:|---:|---:|---:|');
  for (const r of s.byModule.slice(0, top)) lines.push(row(r.name, r));
  lines.push('', '| function (module:line) | self ms | main | workers | share |', '|---|---:|---:|---:|---:|');
  for (const r of s.byFunction.slice(0, top)) lines.push(row(r.name, r));
  return lines.join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const dir = process.argv[2];
  if (!dir) throw new Error('usage: node bench/cpu-profile-table.ts <dir-of-cpuprofiles> [top-n]');
  console.log(formatSummary(summarizeProfiles(dir), Number(process.argv[3] ?? 20)));
}
