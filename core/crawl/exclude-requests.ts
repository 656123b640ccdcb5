/**
 * Live exclusions asked for by another process (`trove exclude DIR REGEX` while a crawl runs in
 * DIR, in a CLI or in the app). Why files and not a row in crawl.sqlite: a running crawl keeps
 * one group transaction open nearly all the time (storage/group-commit.ts), begun DEFERRED, and
 * a commit by another connection between the group's first read and its first write makes the
 * crawl's next write fail at once with SQLITE_BUSY, "database is locked" (issue 33: a preview
 * that opened the database for writing could fail the crawl so). So nothing but the crawl writes
 * its database while it runs:
 *
 *   <dir>/requests/ID.json      a request, written whole (a temporary name, then a rename)
 *   <dir>/requests/ID.taken     the crawl took it (a rename: exactly one side acts on a request)
 *   <dir>/requests/ID.answer    what the crawl did, or the error it met (read and removed by the asker)
 *
 * The crawl's controller looks at the folder with each snapshot (every 250 ms) and applies what
 * it takes through its own connection (live-exclude.ts). A request the crawl never took (it
 * ended meanwhile) is withdrawn by the asker, which then applies it directly under the lock.
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { LiveExcludeResult } from '../api/app-types.ts';
import { crawlPaths } from './crawl-dir.ts';

export interface ExcludeRequest {
  id: string;
  pattern: string;
}

export type ExcludeAnswer = { ok: true; result: LiveExcludeResult } | { ok: false; error: { code: string; message: string } };

const REQUEST = '.json';
const TAKEN = '.taken';
const ANSWER = '.answer';

function folder(dir: string): string {
  return crawlPaths(dir).requests;
}

/** Write whole: readers never see a half-written file under its final name. */
function writeWhole(file: string, text: string): void {
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, text);
  fs.renameSync(tmp, file);
}

/** Ask the crawl running in `dir` to add `pattern`; returns the request's id. */
export function writeExcludeRequest(dir: string, pattern: string): string {
  const d = folder(dir);
  fs.mkdirSync(d, { recursive: true });
  const id = `exclude-${Date.now()}-${process.pid}-${randomBytes(4).toString('hex')}`;
  writeWhole(path.join(d, id + REQUEST), JSON.stringify({ pattern }));
  return id;
}

/** The requests waiting in `dir`, each taken (renamed) so that no one else acts on it. The crawl calls this. */
export function takeExcludeRequests(dir: string): ExcludeRequest[] {
  const d = folder(dir);
  let names: string[];
  try {
    names = fs.readdirSync(d);
  } catch {
    return []; // no folder: nothing was ever asked
  }
  const out: ExcludeRequest[] = [];
  for (const name of names.filter((n) => n.endsWith(REQUEST)).sort()) {
    const id = name.slice(0, -REQUEST.length);
    try {
      fs.renameSync(path.join(d, name), path.join(d, id + TAKEN));
    } catch {
      continue; // withdrawn by its asker meanwhile
    }
    let pattern: unknown;
    try {
      pattern = (JSON.parse(fs.readFileSync(path.join(d, id + TAKEN), 'utf8')) as { pattern?: unknown }).pattern;
    } catch {
      pattern = undefined;
    }
    out.push({ id, pattern: typeof pattern === 'string' ? pattern : '' });
  }
  return out;
}

/** The crawl's answer to a request it took. */
export function answerExcludeRequest(dir: string, id: string, answer: ExcludeAnswer): void {
  const d = folder(dir);
  writeWhole(path.join(d, id + ANSWER), JSON.stringify(answer));
  fs.rmSync(path.join(d, id + TAKEN), { force: true });
}

/** The answer to request `id` once there is one (the file is removed as it is read), else null. */
export function readExcludeAnswer(dir: string, id: string): ExcludeAnswer | null {
  const file = path.join(folder(dir), id + ANSWER);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
  fs.rmSync(file, { force: true });
  return JSON.parse(text) as ExcludeAnswer;
}

/** Take request `id` back; true when nobody had taken it (it is then gone and never applied). */
export function withdrawExcludeRequest(dir: string, id: string): boolean {
  try {
    fs.rmSync(path.join(folder(dir), id + REQUEST));
    return true;
  } catch {
    return false;
  }
}

/** Whether the crawl has taken request `id` and not answered yet. */
export function isExcludeRequestTaken(dir: string, id: string): boolean {
  return fs.existsSync(path.join(folder(dir), id + TAKEN));
}
