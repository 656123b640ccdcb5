import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sortLines } from '../../core/export/external-sort.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-sort-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const byBytes = (a: string, b: string) => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));

async function collect(it: AsyncIterable<string>): Promise<string[]> {
  const out: string[] = [];
  for await (const l of it) out.push(l);
  return out;
}

describe('sortLines', () => {
  // Lines around the spots where UTF-16 order and UTF-8 byte order disagree.
  const tricky = ['com,x)/\uffff', 'com,x)/\u{1f600}', 'com,x)/\ue000', 'com,x)/a', 'com,x)/', 'com,x)/\u00e9', 'com,x)/\r', 'com,x) 1'];

  it('sorts bytewise in memory', async () => {
    expect(await collect(sortLines(tricky, { tmpDir: path.join(tmp, 'a') }))).toEqual([...tricky].sort(byBytes));
    expect(fs.existsSync(path.join(tmp, 'a'))).toBe(false);
  });

  it('spills runs to disk and merges them into the same order, then removes the runs', async () => {
    const lines: string[] = [...tricky];
    for (let i = 0; i < 5000; i++) lines.push(`com,h${i % 37})/p/${crypto.randomBytes(6).toString('hex')} 2024${String(i).padStart(10, '0')} {"x":${i}}`);
    lines.push(...lines.slice(0, 100)); // duplicates survive
    let runs = 0;
    const dir = path.join(tmp, 'b');
    const source = (async function* () {
      yield* lines;
    })();
    const sorted = await collect(sortLines(source, { tmpDir: dir, maxRunBytes: 50_000, onRun: (n) => (runs = n) }));
    expect(runs).toBeGreaterThan(10);
    expect(sorted).toEqual([...lines].sort(byBytes));
    expect(fs.existsSync(dir)).toBe(false);
  });

  it('merges more runs than it may open at once in passes, to the same order, then removes every run', async () => {
    const lines: string[] = [];
    for (let i = 0; i < 3000; i++) lines.push(`com,h${i % 11})/p/${crypto.randomBytes(5).toString('hex')} 2024${String(i).padStart(10, '0')}`);
    let runs = 0;
    const dir = path.join(tmp, 'd');
    const sorted: string[] = [];
    let filesMerged = -1;
    for await (const l of sortLines(lines, { tmpDir: dir, maxRunBytes: 10_000, maxOpenRuns: 3, onRun: (n) => (runs = n) })) {
      if (filesMerged < 0) filesMerged = fs.readdirSync(dir).length; // the passes are over once the first line is out
      sorted.push(l);
    }
    expect(runs).toBeGreaterThan(9);
    expect(filesMerged).toBe(2); // and the last run, in memory
    expect(sorted).toEqual([...lines].sort(byBytes));
    expect(fs.existsSync(dir)).toBe(false);
  });

  it('refuses a line with a newline', async () => {
    await expect(collect(sortLines(['a\nb'], { tmpDir: path.join(tmp, 'c') }))).rejects.toMatchObject({ code: 'EXPORT_BAD_LINE' });
  });
});
