/**
 * The monitor's log view: `logs/crawl.log` and `logs/scope.log` read from the files, newest line
 * first, paged backwards by byte offset, with Heritrix-console filters (status, host, text; the
 * deciding rule for scope.log). Reading the files (not the live events) is what keeps the log
 * across closing and reopening a crawl, and what shows lines written by an earlier run or the CLI.
 *
 * Hand-written because the npm "read last lines" packages read a fixed count from the end and
 * give no cursor to page further back, nor stop early on a filter: here a page reads 64 KiB
 * chunks backwards until it has `limit` matching lines or has scanned SCAN_CAP bytes, and hands
 * back the offset to continue from. A line still being written (no newline yet) is skipped.
 */
import fs from 'node:fs';
import type { LogTailEntry, LogTailPage, LogTailRequest } from '../api/app-types.ts';

const CHUNK = 64 * 1024;
/** At most this many bytes are read for one page, so a filter that matches nothing stays quick. */
export const SCAN_CAP = 8 * 1024 * 1024;

/** One crawl.log line (see core/crawl/crawl-log.ts for the format). */
function parseCrawlLine(line: string, offset: number): LogTailEntry | null {
  const f = line.split(' ').filter((s) => s !== '');
  if (f.length < 7) return null;
  const status = Number(f[1]);
  if (!Number.isFinite(status)) return null;
  return {
    offset,
    time: f[0]!,
    status,
    size: Number(f[2]) || 0,
    url: f[3]!,
    hopsPath: f[4] === '-' ? '' : f[4]!,
    via: f[5] === '-' ? null : f[5]!,
    mime: f[6] === '-' ? null : f[6]!,
    rule: null,
    reason: f[11] && f[11] !== '-' ? f[11] : null,
  };
}

/** One scope.log line: `time rule url hops via reason…` (written in core/crawl/start-crawl.ts). */
function parseScopeLine(line: string, offset: number): LogTailEntry | null {
  const f = line.split(' ');
  if (f.length < 5) return null;
  return {
    offset,
    time: f[0]!,
    status: null,
    size: null,
    url: f[2]!,
    hopsPath: f[3] === '-' ? '' : f[3]!,
    via: f[4] === '-' ? null : f[4]!,
    mime: null,
    rule: f[1]!,
    reason: f.slice(5).join(' ') || null,
  };
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '';
  }
}

/**
 * `status` matches a code (`404`, `-9998`), a class (`2xx`, `4xx`) or `neg` (every negative
 * outcome); `host` a host or its suffix (`example.org` matches `www.example.org`).
 */
function matcher(req: LogTailRequest): { raw: (line: string) => boolean; parsed: (e: LogTailEntry) => boolean } {
  const status = req.status?.trim().toLowerCase() || null;
  const host = req.host?.trim().toLowerCase() || null;
  const text = req.text?.trim() || null;
  const rule = req.rule?.trim() || null;
  // The text filter runs on the raw line before it is parsed: most lines of a big log fail it.
  const textRe = text === null ? null : new RegExp(text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'i');
  return {
    raw: (line) => textRe === null || textRe.test(line),
    parsed: (e) => {
      if (status !== null) {
        if (e.status === null) return false;
        if (status === 'neg') {
          if (e.status >= 0) return false;
        } else if (/^[1-5]xx$/.test(status)) {
          if (Math.floor(e.status / 100) !== Number(status[0])) return false;
        } else if (String(e.status) !== status) return false;
      }
      if (rule !== null && e.rule !== rule) return false;
      if (host !== null) {
        const h = hostOf(e.url).toLowerCase();
        if (h !== host && !h.endsWith('.' + host)) return false;
      }
      return true;
    },
  };
}

/** A page of `file`, newest first, ending before byte `req.before` (the end of the file when omitted). */
export function readLogTail(file: string, req: LogTailRequest): LogTailPage {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { lines: [], next: null, fileBytes: 0, scannedBytes: 0 };
    throw err;
  }
  try {
    const fileBytes = fs.fstatSync(fd).size;
    const parse = req.log === 'scope' ? parseScopeLine : parseCrawlLine;
    const matches = matcher(req);
    const lines: LogTailEntry[] = [];
    // With no cursor the file's last bytes may be a line still being written: start at the last newline.
    let pos = Math.min(req.before ?? fileBytes, fileBytes);
    let carry: Buffer = Buffer.alloc(0);
    let trimmedTail = req.before === undefined;
    let scanned = 0;
    while (pos > 0 && lines.length < req.limit && scanned < SCAN_CAP) {
      const start = Math.max(0, pos - CHUNK);
      const buf = Buffer.alloc(pos - start);
      fs.readSync(fd, buf, 0, buf.length, start);
      scanned += buf.length;
      let data = carry.length > 0 ? Buffer.concat([buf, carry]) : buf;
      const base = start;
      if (trimmedTail) {
        const nl = data.lastIndexOf(0x0a);
        if (nl < 0) {
          carry = data;
          pos = start;
          continue;
        }
        data = data.subarray(0, nl + 1);
        trimmedTail = false;
      }
      // Lines that end inside `data`; the part before the first newline may continue further back.
      let lineEnd = data.length;
      if (data[lineEnd - 1] === 0x0a) lineEnd--;
      // (Buffer#lastIndexOf counts a negative start from the end: never pass one.)
      let i = lineEnd > 0 ? data.lastIndexOf(0x0a, lineEnd - 1) : -1;
      while (i >= 0 && lines.length < req.limit) {
        const text = data.toString('utf8', i + 1, lineEnd);
        const e = text && matches.raw(text) ? parse(text, base + i + 1) : null;
        if (e && matches.parsed(e)) lines.push(e);
        lineEnd = i;
        i = lineEnd > 0 ? data.lastIndexOf(0x0a, lineEnd - 1) : -1;
      }
      if (lines.length >= req.limit) {
        // Continue from the start of the last line returned.
        return { lines, next: lines.at(-1)!.offset, fileBytes, scannedBytes: scanned };
      }
      carry = Buffer.from(data.subarray(0, lineEnd));
      pos = start;
      if (start === 0 && carry.length > 0) {
        const text = carry.toString('utf8');
        const e = matches.raw(text) ? parse(text, 0) : null;
        if (e && matches.parsed(e)) lines.push(e);
        carry = Buffer.alloc(0);
      }
    }
    // Stopped by the scan cap: continue before the partial line carried (its start lies further back).
    const next = pos > 0 && !trimmedTail ? pos + carry.length : null;
    return { lines, next, fileBytes, scannedBytes: scanned };
  } finally {
    fs.closeSync(fd);
  }
}
