/**
 * bench/ as a tool: every script in it is reachable from `npm run bench` (a bench or tool by
 * name, or a helper one of them names), `npm run bench -- --help` lists every bench with one
 * line, bench/README.md stays within 400 lines, and GNU time's report (how the crawl bench times
 * Trove's CLI and wget as whole processes) is read right from a real /usr/bin/time run.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BENCHES, HELPERS, TOOLS } from '../../bench/registry.ts';
import { README_MAX_LINES, benchCheck } from '../../bench/registry-check.ts';
import { parseTimeV, timeProcess } from '../../bench/time-v.ts';

const benchDir = path.resolve(import.meta.dirname, '../../bench');
const run = path.join(benchDir, 'run.ts');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-bench-registry-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('the bench registry', () => {
  it('reaches every script in bench/, and bench/README.md is a page', () => {
    const c = benchCheck();
    console.log(`lines of bench/README.md: ${c.readmeLines} (at most ${README_MAX_LINES})`);
    console.log(`benches not reachable from npm run bench: ${c.unreachable.length}`);
    expect(c.unreachable).toEqual([]);
    expect(c.readmeLines).toBeLessThanOrEqual(README_MAX_LINES);
  });

  it('bench/README.md names every bench and tool', () => {
    const readme = fs.readFileSync(path.join(benchDir, 'README.md'), 'utf8');
    expect([...BENCHES, ...TOOLS].map((b) => b.name).filter((n) => !readme.includes(`\`${n}\``))).toEqual([]);
  });

  it('registers every *-bench.ts file, each name once, each with one line', () => {
    const files = fs.readdirSync(benchDir).filter((f) => f.endsWith('-bench.ts'));
    const registered = new Set(BENCHES.map((b) => b.file));
    expect(files.filter((f) => !registered.has(f))).toEqual([]);
    const names = [...BENCHES, ...TOOLS].map((b) => b.name);
    expect(new Set(names).size).toBe(names.length);
    for (const b of [...BENCHES, ...TOOLS, ...HELPERS]) expect(b.what).not.toMatch(/\n/);
  });

  it('--help lists every bench and tool with what it measures', () => {
    const r = spawnSync(process.execPath, [run, '--help'], { encoding: 'utf8' });
    expect(r.status).toBe(0);
    const lines = r.stdout.split('\n');
    for (const b of [...BENCHES, ...TOOLS]) {
      expect(lines.some((l) => new RegExp(`^\\s+${b.name}( \\*)?\\s+`).test(l) && l.includes(b.what)), b.name).toBe(true);
    }
    // Helpers are not listed as benches.
    for (const h of HELPERS) expect(r.stdout).not.toContain(h.file);
  });

  it('--check prints the README length and 0 unreachable benches, and exits 0', () => {
    const r = spawnSync(process.execPath, [run, '--check'], { encoding: 'utf8' });
    expect(r.stdout).toMatch(/^lines of bench\/README\.md: \d+ \(at most 400\)$/m);
    expect(r.stdout).toContain('benches not reachable from npm run bench: 0');
    expect(r.status).toBe(0);
  });

  it('finds a bench left out of the registry, and a helper nothing names', () => {
    const copy = path.join(tmp, 'bench');
    fs.cpSync(benchDir, copy, { recursive: true });
    fs.writeFileSync(path.join(copy, 'forgotten-bench.ts'), '// a bench nobody registered\n');
    fs.writeFileSync(path.join(copy, 'stray-probe.ts'), '// a probe nobody registered\n');
    // A helper still listed, whose only user no longer names it.
    const user = path.join(copy, 'body-buffers-bench.ts');
    fs.writeFileSync(user, fs.readFileSync(user, 'utf8').replaceAll('buffers-sample-child', 'renamed-child'));
    fs.appendFileSync(path.join(copy, 'README.md'), 'x\n'.repeat(README_MAX_LINES));
    const c = benchCheck(copy);
    expect(c.unreachable.map((u) => u.split(' ')[0])).toEqual(['buffers-sample-child.js', 'forgotten-bench.ts', 'stray-probe.ts']);
    expect(c.readmeLines).toBeGreaterThan(README_MAX_LINES);
  });
});

describe.runIf(fs.existsSync('/usr/bin/time'))("GNU time's -v report", () => {
  it('gives the whole process: CPU, wall, max RSS and exit status', () => {
    const report = path.join(tmp, 'time-v.txt');
    // 64 MiB touched, some CPU spent, then exit 3.
    const code = 'const b = Buffer.alloc(64 * 2 ** 20, 1); let s = 0; for (let i = 0; i < 2e7; i++) s += b[i % b.length]; process.exit(s > 0 ? 3 : 4);';
    const t = timeProcess(process.execPath, ['-e', code], { report, ok: [3] });
    expect(t).toEqual(parseTimeV(fs.readFileSync(report, 'utf8')));
    expect(t.exitStatus).toBe(3);
    expect(t.maxRssKib).toBeGreaterThan(64 * 1024);
    expect(t.userS + t.sysS).toBeGreaterThan(0);
    expect(t.wallS).toBeGreaterThan(0);
    // An exit status not asked for is an error, with the command named.
    expect(() => timeProcess(process.execPath, ['-e', 'process.exit(5)'], { report })).toThrow(/exited 5/);
  });

  it('reads hours and minutes of wall time, and refuses a report that is not one', () => {
    const fake = (clock: string) =>
      ['User time (seconds): 1.50', 'System time (seconds): 0.25', `Elapsed (wall clock) time (h:mm:ss or m:ss): ${clock}`, 'Maximum resident set size (kbytes): 2048', 'Exit status: 0'].map((l) => `\t${l}`).join('\n');
    expect(parseTimeV(fake('1:02:03')).wallS).toBe(3723);
    expect(parseTimeV(fake('2:03.50')).wallS).toBe(123.5);
    expect(parseTimeV(fake('0:07.25'))).toEqual({ userS: 1.5, sysS: 0.25, wallS: 7.25, maxRssKib: 2048, exitStatus: 0 });
    expect(() => parseTimeV('real 0m1.0s')).toThrow(/not a GNU time -v report/);
  });
});
