/**
 * `trove export --mirror DIR`: the archived site as plain files a person opens offline in any
 * browser (the HTTrack habit): one file per captured URL, the latest 200 capture, its body as
 * replay hands it to a browser (de-chunked, content-decoded; revisits resolved), at the path
 * mirror-paths.ts gives it. Links in HTML and CSS to URLs in the mirror become relative paths;
 * links to anything else become absolute URLs (so they go to the live web, not to a missing
 * file). A root `index.html` lists the sites.
 *
 * Two passes: first every URL gets its path (mirror-plan.ts, kept in a temporary SQLite file),
 * then each file is written, pages rewritten against the plan. A planned URL whose capture
 * cannot be replayed still gets a small placeholder page, so no rewritten link ever points at a
 * missing file. The folder must be empty or new (nothing in it is overwritten or followed), and
 * every path is checked to stay inside it before it is written; files are opened with
 * O_NOFOLLOW where the platform has it. A cancel (the signal) stops at the next file and empties
 * the folder again (removing it when the export made it): a half mirror would look whole.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Archive } from '../archive/archive-dir.ts';
import { TroveError, isCancelled } from '../errors.ts';
import { fieldValue } from '../formats/http-fields.ts';
import { isHtmlType, mediaType } from '../formats/media-type.ts';
import { replay } from '../replay/replay.ts';
import { ProgressThrottle } from './export-types.ts';
import type { ProgressFn } from './export-types.ts';
import { rewriteCss } from './mirror-css.ts';
import { rewriteHtml } from './mirror-html.ts';
import { rewriteLink } from './mirror-links.ts';
import { MirrorPlan } from './mirror-plan.ts';
import { mirrorRootIndex, placeholderPage } from './mirror-pages.ts';

export interface MirrorExportOptions {
  onProgress?: ProgressFn;
  /** Aborting it stops the export (CANCELLED) and removes what it wrote. */
  signal?: AbortSignal;
}

export interface MirrorExportResult {
  dir: string;
  /** Files written for captured URLs (the root index.html not counted). */
  files: number;
  bytes: number;
  /** Pages and stylesheets whose links were rewritten. */
  rewritten: number;
  /** Links pointed at files in the mirror. */
  linksLocal: number;
  /** Links to URLs not in the mirror, written as absolute URLs. */
  linksAbsolute: number;
  /** Planned URLs whose capture could not be replayed (a placeholder page was written). */
  placeholders: number;
}

const PLAN_FILE = '.trove-mirror-plan.sqlite';
const O_NOFOLLOW = fs.constants.O_NOFOLLOW ?? 0;

export async function exportMirror(archive: Archive, dir: string, opts: MirrorExportOptions = {}): Promise<MirrorExportResult> {
  const progress = new ProgressThrottle(opts.onProgress, opts.signal);
  const { root, created } = await prepareFolder(dir);
  const plan = new MirrorPlan(path.join(root, PLAN_FILE));
  let cancelled = false;
  const result: MirrorExportResult = { dir: root, files: 0, bytes: 0, rewritten: 0, linksLocal: 0, linksAbsolute: 0, placeholders: 0 };
  try {
    // Pass 1: a path for every URL (the latest 200 GET capture of each URL key, in key order).
    let after = '';
    for (;;) {
      const rows = archive.index.latestOkCaptures(after, 1000);
      if (rows.length === 0) break;
      after = rows.at(-1)!.urlkey;
      plan.batch(() => {
        for (const r of rows) {
          const url = URL.parse(r.targetUri);
          if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || r.urlkey.includes('__wb_method=')) continue;
          plan.add(r.urlkey, url, r.ts, mediaType(r.mime));
        }
      });
      progress.report('plan', plan.count(), 0, 0);
    }

    // Pass 2: the files.
    const total = plan.count();
    const hosts = new Map<string, string>();
    for (const f of plan.files()) {
      const linkFrom = (raw: string, base: URL): string | null => {
        const link = rewriteLink(plan, f.path, raw, base);
        if (link?.local) result.linksLocal++;
        else if (link) result.linksAbsolute++;
        return link?.value ?? null;
      };
      let body: Buffer;
      const res = await replay(archive, { url: f.url, at: f.ts });
      if (res.kind === 'archived') {
        const ct = fieldValue(res.headers, 'content-type') ?? undefined;
        const type = mediaType(ct) ?? f.mime;
        body = res.body;
        let rewritten: Buffer | null = null;
        if (isHtmlType(type)) rewritten = rewriteHtml(body, ct, f.url, linkFrom);
        else if (type === 'text/css') rewritten = rewriteStylesheet(body, (raw) => linkFrom(raw, new URL(f.url)));
        if (rewritten) {
          body = rewritten;
          result.rewritten++;
        }
      } else {
        body = placeholderPage(f.url);
        result.placeholders++;
      }
      await writeInside(root, f.path, body, f.ts);
      result.files++;
      result.bytes += body.length;
      const host = f.path.split('/', 1)[0]!;
      const known = hosts.get(host);
      if (known === undefined || entryRank(host, f.path) < entryRank(host, known)) hosts.set(host, f.path);
      progress.report('files', result.files, total, result.bytes);
    }
    const seeds = archive.meta<{ seeds?: string[] }>('settings')?.seeds ?? [];
    const index = mirrorRootIndex(
      seeds.map((s) => ({ url: s, path: plan.pathFor(s) })).filter((s): s is { url: string; path: string } => s.path !== null),
      [...hosts.entries()].sort((a, b) => a[0].localeCompare(b[0])).map(([host, p]) => ({ host, path: p })),
    );
    await writeInside(root, 'index.html', index, null);
    result.bytes += index.length;
  } catch (err) {
    cancelled = isCancelled(err);
    throw err;
  } finally {
    plan.close();
    if (cancelled) await emptyFolder(root, created);
  }
  progress.done('files', result.files, result.files, result.bytes);
  return result;
}

/** How good a file is as a site's entry in the root index (lower is better): its home page, a page, anything. */
function entryRank(host: string, p: string): number {
  const kind = p === `${host}/index.html` ? 0 : /\.x?html?$/i.test(p) ? 1 : 2;
  return kind * 1e6 + p.length;
}

/** Create the folder, or accept an empty one; refuse one with anything in it. */
async function prepareFolder(dir: string): Promise<{ root: string; created: boolean }> {
  const created = (await fsp.mkdir(dir, { recursive: true })) !== undefined;
  const entries = await fsp.readdir(dir);
  if (entries.length > 0) {
    throw new TroveError('EXPORT_TARGET_NOT_EMPTY', `${dir} is not empty; give a new or empty folder for the mirror`, { dir });
  }
  return { root: await fsp.realpath(dir), created };
}

/** After a cancel: the folder as it was before (empty, or gone when the export made it). */
async function emptyFolder(root: string, created: boolean): Promise<void> {
  if (created) {
    await fsp.rm(root, { recursive: true, force: true });
    return;
  }
  for (const name of await fsp.readdir(root)) await fsp.rm(path.join(root, name), { recursive: true, force: true });
}

function rewriteStylesheet(body: Buffer, rewrite: (raw: string) => string | null): Buffer | null {
  const declared = /^@charset\s+"([^"]+)"/i.exec(body.subarray(0, 128).toString('latin1'))?.[1];
  let text: string;
  try {
    text = new TextDecoder(declared ?? 'utf-8').decode(body);
  } catch {
    text = new TextDecoder('utf-8').decode(body);
  }
  const r = rewriteCss(text, rewrite);
  // A BOM outranks @charset, so the sheet reads as UTF-8 whatever it declares.
  return r.changed ? Buffer.from('\ufeff' + r.css, 'utf8') : null;
}

/** Write `rel` below `root`, never outside it and never through a symbolic link. */
async function writeInside(root: string, rel: string, data: Buffer, ts: string | null): Promise<void> {
  const target = path.resolve(root, ...rel.split('/'));
  if (!target.startsWith(root + path.sep)) {
    throw new TroveError('EXPORT_UNSAFE_PATH', `mirror path ${rel} would be written outside ${root}`, { path: rel });
  }
  await fsp.mkdir(path.dirname(target), { recursive: true });
  const fh = await fsp.open(target, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_TRUNC | O_NOFOLLOW, 0o644);
  try {
    await fh.writeFile(data);
  } finally {
    await fh.close();
  }
  if (ts) {
    const t = new Date(`${ts.slice(0, 4)}-${ts.slice(4, 6)}-${ts.slice(6, 8)}T${ts.slice(8, 10)}:${ts.slice(10, 12)}:${ts.slice(12, 14)}Z`);
    if (!Number.isNaN(t.getTime())) await fsp.utimes(target, t, t);
  }
}
