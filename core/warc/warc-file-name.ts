/**
 * WARC file names in the Heritrix style archivists know:
 * `PREFIX-<yyyyMMddHHmmssSSS>-<serial, 5 digits>-<pid>~<host>.warc.gz`, written as
 * `….warc.gz.open` while in use and renamed on close.
 */
import { TroveError } from '../errors.ts';
import { isFourDigitYear, timestamp17 } from '../formats/timestamp.ts';

export const OPEN_SUFFIX = '.open';

export interface WarcFileNameParts {
  prefix: string;
  /** The time the file was opened. */
  date: Date;
  /** Per-writer file counter; padded to 5 digits, wider when it outgrows them. */
  serial: number;
  pid: number;
  host: string;
  /** `.warc.gz` when true (default), `.warc` when false. */
  gzip?: boolean;
}

/** The 17-digit timestamp of a file name's date; throws WARC_BAD_FILE_NAME for years past 9999. */
function fileTimestamp(d: Date): string {
  if (!isFourDigitYear(d)) {
    throw new TroveError('WARC_BAD_FILE_NAME', `date out of range for a WARC file name: ${d.toISOString()}`);
  }
  return timestamp17(d);
}

/** Host part: anything that is not safe in a file name on every OS becomes `-`. */
export function safeHostLabel(host: string): string {
  const cleaned = host.replace(/[^A-Za-z0-9._-]/g, '-').replace(/^[.-]+/, '');
  return cleaned || 'localhost';
}

/** The final file name (no `.open`). Throws `WARC_BAD_FILE_NAME` on a prefix that is not file-name safe. */
export function warcFileName(parts: WarcFileNameParts): string {
  if (!/^[A-Za-z0-9._-]+$/.test(parts.prefix)) {
    throw new TroveError('WARC_BAD_FILE_NAME', `WARC prefix must be letters, digits, '.', '_' or '-': ${JSON.stringify(parts.prefix)}`);
  }
  if (!Number.isSafeInteger(parts.serial) || parts.serial < 0) {
    throw new TroveError('WARC_BAD_FILE_NAME', `WARC serial must be a non-negative integer: ${parts.serial}`);
  }
  const serial = String(parts.serial).padStart(5, '0');
  const ext = parts.gzip === false ? '.warc' : '.warc.gz';
  return `${parts.prefix}-${fileTimestamp(parts.date)}-${serial}-${parts.pid}~${safeHostLabel(parts.host)}${ext}`;
}

const NAME_RE = /^(.+)-(\d{17})-(\d{5,})-(\d+)~(.+?)\.warc(\.gz)?(\.open)?$/;

export interface ParsedWarcFileName {
  prefix: string;
  timestamp: string;
  serial: number;
  pid: number;
  host: string;
  gzip: boolean;
  open: boolean;
}

/**
 * Reads back a name this module wrote (null for anything else). A resumed crawl uses it to
 * continue numbering: `startSerial = max(serial) + 1` over the crawl's WARC directory.
 */
export function parseWarcFileName(name: string): ParsedWarcFileName | null {
  const m = NAME_RE.exec(name);
  if (!m) return null;
  return {
    prefix: m[1],
    timestamp: m[2],
    serial: Number(m[3]),
    pid: Number(m[4]),
    host: m[5],
    gzip: m[6] !== undefined,
    open: m[7] !== undefined,
  };
}

/** The name a `.open` file gets once closed (or recovered). */
export function finalNameOf(openName: string): string {
  if (!openName.endsWith(OPEN_SUFFIX)) {
    throw new TroveError('WARC_NOT_OPEN_FILE', `not a .open WARC file: ${openName}`, { path: openName });
  }
  return openName.slice(0, -OPEN_SUFFIX.length);
}
