/**
 * SQL lives with the store that owns its table: only `core/archive/` (the capture index, record
 * queries, imports, prior captures, fixity), `core/frontier/` and `core/storage/` (opening,
 * migrations, meta, robots, the mirror's scratch plan) hold SQL text, prepare statements or set
 * pragmas. Every other room asks those for what it needs. This test scans the source of `core/`
 * and names each line that breaks the rule.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, tsFiles } from '../helpers/repo-files.ts';

const SQL_HOMES = ['core/archive/', 'core/frontier/', 'core/storage/'];

/** Table names, as the migrations create them. */
function tables(): string[] {
  const src = fs.readFileSync(path.join(REPO_ROOT, 'core/storage/migrations.ts'), 'utf8');
  return [...new Set([...src.matchAll(/CREATE\s+(?:VIRTUAL\s+)?TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?(\w+)/g)].map((m) => m[1]!))];
}

/** Source with comments blanked (kept line for line), so prose about SQL is not SQL. */
function withoutComments(src: string): string {
  return src.replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, ' ')).replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');
}

/** What SQL looks like in TypeScript source: each rule names what it catches. */
function sqlRules(tableNames: string[]): { name: string; re: RegExp }[] {
  const t = tableNames.join('|');
  return [
    { name: 'a statement in a string', re: /[`'"]\s*(SELECT|INSERT\s+(?:OR\s+\w+\s+)?INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM|CREATE\s+(?:UNIQUE\s+|VIRTUAL\s+)?(?:TABLE|INDEX|TRIGGER|VIEW)|PRAGMA|WITH\s+\w+\s+AS)\b/ },
    { name: 'a clause over a Trove table', re: new RegExp(`\\b(FROM|JOIN|INTO|UPDATE)\\s+(${t})\\b`) },
    { name: 'a prepared statement', re: /\.prepare\s*(<[^>]*>)?\s*\(/ },
    { name: 'SQL run with exec', re: /\.exec\s*\(\s*[`'"]/ },
    { name: 'a pragma', re: /\.pragma\s*\(/ },
    { name: "a connection opened outside storage (a value import of better-sqlite3)", re: /^\s*import\s+(?!type\b)\w+[^;]*from\s+['"]better-sqlite3['"]/ },
    { name: "the archive's connection taken outside the archive", re: /\bdatabaseOf\b/ },
  ];
}

function violations(file: string, src: string, rules: { name: string; re: RegExp }[]): string[] {
  const out: string[] = [];
  const lines = withoutComments(src).split('\n');
  lines.forEach((line, i) => {
    for (const r of rules) if (r.re.test(line)) out.push(`${file}:${i + 1}: ${r.name}: ${line.trim()}`);
  });
  return out;
}

describe('SQL ownership', () => {
  const rules = sqlRules(tables());

  it('knows the tables and catches each kind of SQL (so a clean scan means something)', () => {
    expect(tables()).toEqual(expect.arrayContaining(['records', 'warc_files', 'uris', 'queues', 'meta', 'prior_captures', 'page_text']));
    const samples = [
      "const st = db.prepare('SELECT id FROM records WHERE page = 1');",
      'db.exec(`DELETE FROM prior_captures`);',
      "db.pragma('wal_checkpoint(TRUNCATE)');",
      "const q = `id, url FROM uris WHERE state < 3`;",
      "import Database from 'better-sqlite3';",
      "const db = databaseOf(archive);",
      "const n = stmt.get() as { n: number }; // SELECT COUNT(*) in a comment is prose",
      "const m = /^(\\d+)/.exec(line);",
      "import type Database from 'better-sqlite3';",
    ];
    const found = samples.map((s) => violations('sample.ts', s, rules).length > 0);
    expect(found).toEqual([true, true, true, true, true, true, false, false, false]);
  });

  it('finds SQL only in core/archive/, core/frontier/ and core/storage/', () => {
    const bad: string[] = [];
    for (const file of tsFiles('core')) {
      if (SQL_HOMES.some((home) => file.startsWith(home))) continue;
      bad.push(...violations(file, fs.readFileSync(path.join(REPO_ROOT, file), 'utf8'), rules));
    }
    expect(bad).toEqual([]);
  });
});
