/**
 * Every file under the corpus's warc/ folder read by the reader, each its own test with a
 * timeout: record types and offsets equal what EXPECTED.json states (a plain scan of record
 * types, gzip member offsets, and what upstream projects' tests assert); broken files end in a
 * typed error with an offset, never an untyped throw or a hang.
 */
import { describe, expect, it } from 'vitest';
import { corpusPath, corpusWarcFiles, expectedEntries, isGplCorpusFile } from '../helpers/corpus.ts';
import { itUsing } from '../helpers/gpl-tests.ts';
import { openArchiveFile } from '../../core/warc/read-records.ts';
import type { WarcRecord } from '../../core/warc/read-records.ts';
import { WarcReadError } from '../../core/warc/read-errors.ts';

interface Expected {
  file: string;
  size: number;
  format: 'WARC' | 'ARC';
  gzip: { members: number; member_offsets: (number | string)[] } | null;
  warc_type_lines: string[];
}

const expected = expectedEntries<Expected>();
const files = corpusWarcFiles();

/** What upstream tests (quoted in EXPECTED.json) assert, and where this reader knowingly differs. */
const known: Record<string, { types?: string[]; at?: [number, number][]; error?: [string, number]; warnings?: string[] }> = {
  'warc/warcio/example.warc': { at: [[0, 484], [488, 705], [1197, 1365], [2566, 800], [3370, 942], [4316, 800]] },
  'warc/warcio/example.warc.gz': { at: [[0, 353], [353, 431], [784, 1228], [2012, 609], [2621, 586], [3207, 609]] },
  'warc/warcio.js/example.warc': { at: [[0, 484], [488, 705], [1197, 1365], [2566, 800], [3370, 942], [4316, 800], [5120, 429]] },
  'warc/warcio/example-resource.warc.gz': { at: [[0, 361], [361, 441], [802, 977]] },
  'warc/warcio.js/example-resource.warc.gz': { at: [[0, 261]] },
  'warc/warcio.js/example-url-agnostic-revisit.warc.gz': { at: [[0, 355], [355, 591]], warnings: ['WARC_BAD_SEPARATOR'] },
  'warc/pywb/example-wpull.warc.gz': { at: [[0, 1619], [1619, 412], [2031, 1150], [3181, 557]] },
  'warc/pywb/missing-status-text.warc': { at: [[0, 485]], warnings: ['WARC_BAD_LINE_ENDING', 'WARC_BAD_SEPARATOR'] },
  // warcio.js: "Content-Length Too Small …, Offset: 2561"; CDX lines at 1197 (1364) and 3370 (944).
  'warc/warcio.js/example-bad-length.warc': {
    at: [[0, 484], [488, 705], [1197, 1364], [2566, 800], [3370, 944], [4316, 800]],
    warnings: ['WARC_BAD_SEPARATOR', 'WARC_SKIPPED_DATA'],
  },
  'warc/warcio/example-trunc.warc': { at: [[0, 484], [488, 705], [1197, 1363], [2566, 800]], warnings: ['WARC_BAD_SEPARATOR', 'WARC_SKIPPED_DATA'] },
  'warc/warcio/example-bad-non-chunked.warc.gz': { warnings: ['WARC_NOT_RANDOM_ACCESS'] },
  'warc/warcio/example-bad.warc.gz.bad': { warnings: ['WARC_NOT_RANDOM_ACCESS'] },
  // warcio recompress lists the response at 0 and the request after it; the members split them.
  'warc/warcio/example-wrong-chunks.warc.gz': { warnings: ['WARC_BAD_SEPARATOR', 'WARC_NOT_RANDOM_ACCESS'] },
  // The WARC-Type value is itself on a folded line, so a line scan sees ''; JWAT reads the type.
  'warc/jwat/valid-warcfile-fields-continuation.warc': { types: ['continuation'] },
  // One record with every field twice (JWAT: 1 record); a line scan counts two WARC-Type lines.
  'warc/jwat/invalid-warcfile-duplicate-fields.warc': { types: ['warcinfo'] },
  'warc/jwat/invalid-warcfile-record-then-garbage.warc': { error: ['WARC_TRAILING_DATA', 1135], warnings: ['WARC_BAD_SEPARATOR'] },
  // Content-Length "very lengthy": the block is taken as empty, so the HTTP request after it is trailing data.
  'warc/jwat/invalid-warcfile-fields-invalidformat.warc': { error: ['WARC_TRAILING_DATA', 250], warnings: ['WARC_BAD_CONTENT_LENGTH', 'WARC_BAD_SEPARATOR'] },
  'warc/jwat/invalid-warcfile-lonely-monkeys.warc': { warnings: ['WARC_BAD_CONTENT_LENGTH', 'WARC_BAD_LINE_ENDING', 'WARC_BAD_SEPARATOR'] },
  'warc/jwat/invalid-warcfile-lonely-request-response-resource-conversion.warc': { at: [[0, 32], [36, 33], [73, 33], [110, 35]], warnings: ['WARC_BAD_CONTENT_LENGTH'] },
  // A hand-made test file: one response's Content-Length stops one LF short of its block.
  'warc/webarchive-commons/link-extraction-test.warc': { warnings: ['WARC_BAD_SEPARATOR'] },
  'warc/webarchive-commons/IAH-20080430204825-00000-blackbook-truncated.arc': { types: ['warcinfo', ...Array<string>(8).fill('response')] },
  // ARC: warcio says [arc_header, response] at (0,150) (151,1656); our filedesc length stops at its
  // Archive-length (149 bytes) and leaves out the newlines after it, as for every other record.
  'warc/warcio/example.arc': { types: ['warcinfo', 'response'], at: [[0, 149], [151, 1656]] },
  'warc/warcio/example.arc.gz': { types: ['warcinfo', 'response'], at: [[0, 171], [171, 856]] },
  // warcio: [arc_header, response, response, response]; pywb CDX: lengths/offsets 67/134 and 59/202.
  'warc/warcio/bad.arc': { types: ['warcinfo', 'response', 'response', 'response'], at: [[0, 61], [134, 67], [202, 59], [262, 68]], warnings: ['ARC_BAD_LENGTH', 'WARC_SKIPPED_DATA'] },
};

describe('corpus warc/: every file', () => {
  it('lists every file in EXPECTED.json', () => {
    expect(files).toEqual(expected.map((e) => e.file).sort());
  });

  itUsing('warc/pywb', 'warc/ukwa')('includes the GPL files (pywb, ukwa) kept outside the repository', () => {
    expect(files.filter(isGplCorpusFile)).toHaveLength(9);
  });

  for (const file of files) {
    it(file, { timeout: 20_000 }, async () => {
      const exp = expected.find((e) => e.file === file)!;
      const records: WarcRecord[] = [];
      const warnings = new Set<string>();
      let error: unknown = null;
      try {
        for await (const r of openArchiveFile(corpusPath(file), { onWarning: (w) => warnings.add(w.code) })) {
          records.push(r);
          for await (const chunk of r.block()) void chunk; // read every block through
        }
      } catch (e) {
        error = e;
      }
      const k = known[file] ?? {};
      const types = records.map((r) => r.type);

      // Errors: typed, with an offset inside the file, and only where expected.
      if (k.error) {
        expect(error).toBeInstanceOf(WarcReadError);
        expect([(error as WarcReadError).code, (error as WarcReadError).offset]).toEqual(k.error);
      } else {
        expect(error).toBeNull();
      }
      expect([...warnings].sort()).toEqual((k.warnings ?? []).slice().sort());

      // Record types: a plain scan of WARC-Type lines (ARC files have none). A long list ends
      // with "... (N total)".
      const scanned = exp.warc_type_lines.map((t) => t.toLowerCase());
      const total = /^\.\.\. \((\d+) total\)$/.exec(scanned.at(-1) ?? '');
      if (total) {
        expect(types.slice(0, scanned.length - 1)).toEqual(scanned.slice(0, -1));
        expect(types).toHaveLength(Number(total[1]));
      } else {
        expect(types).toEqual(k.types ?? scanned);
      }
      expect(records.every((r) => r.format === (exp.format === 'ARC' ? 'arc' : 'warc'))).toBe(true);

      // Offsets: upstream's, or for per-record gzip the member offsets, and lengths that reach the next one.
      if (k.at) expect(records.map((r) => [r.offset, r.length])).toEqual(k.at);
      const members = exp.gzip?.member_offsets.filter((o): o is number => typeof o === 'number');
      if (members && !warnings.has('WARC_NOT_RANDOM_ACCESS')) {
        expect(records.map((r) => r.offset).slice(0, members.length)).toEqual(members);
        records.forEach((r, i) => expect(r.offset + r.length).toBe(records[i + 1]?.offset ?? exp.size));
      }
      for (const r of records) expect(r.offset).toBeLessThan(exp.size);
    });
  }
});

describe('corpus facts read through the records', () => {
  it('wget <uri> is unwrapped; a space in a target URI is kept as written', async () => {
    const uris: (string | null)[] = [];
    for await (const r of openArchiveFile(corpusPath('warc', 'warcio', 'example-wget-bad-target-uri.warc.gz'))) uris.push(r.targetUri);
    expect(uris.slice(1, 3)).toEqual(['http://example.com/', 'http://example.com/']);
    for await (const r of openArchiveFile(corpusPath('warc', 'warcio', 'example-space-in-target-uri.warc.gz'))) {
      if (r.type === 'resource') expect(r.targetUri).toBe('file:///example with spaces.png');
    }
  });

  it('repeated fields keep every value (WARC-Protocol twice, WARC-Concurrent-To three times)', async () => {
    for await (const r of openArchiveFile(corpusPath('warc', 'webarchive-commons', 'mutliple-headers.warc'))) {
      expect(r.getAll('WARC-Protocol')).toEqual(['h2', 'tls/1.3']);
    }
    for await (const r of openArchiveFile(corpusPath('warc', 'jwat', 'valid-warcfile-duplicate-concurrentto.warc'))) {
      expect(r.getAll('warc-concurrent-to')).toHaveLength(3);
    }
  });

  it('the Heritrix ARC has robots.txt at 1515 and collection-rss.php at 36420', async () => {
    const at = new Map<number, string | null>();
    for await (const r of openArchiveFile(corpusPath('warc', 'webarchive-commons', 'IAH-20080430204825-00000-blackbook-truncated.arc'))) at.set(r.offset, r.targetUri);
    expect(at.get(1515)).toBe('http://www.archive.org/robots.txt');
    expect(at.get(36420)).toBe('http://www.archive.org/services/collection-rss.php');
    expect(at.get(0)).toBe('filedesc://IAH-20080430204825-00000-blackbook-truncated.arc');
  });

  it('the ARC date becomes a WARC-Date; ARC fields become WARC fields', async () => {
    const rs: WarcRecord[] = [];
    for await (const r of openArchiveFile(corpusPath('warc', 'warcio', 'example.arc.gz'))) rs.push(r);
    expect(rs[0]!.version).toBe('ARC/1.0');
    expect(rs[1]!.date).toBe('2014-02-16T05:02:21Z');
    expect(rs[1]!.get('WARC-IP-Address')).toBe('93.184.216.119');
    expect(rs[1]!.get('WARC-Identified-Payload-Type')).toBe('text/html');
  });

  it('gzip_extra_sl.warc.gz: a gzip header with FEXTRA is skipped and the whole file is read', async () => {
    const rs: WarcRecord[] = [];
    for await (const r of openArchiveFile(corpusPath('warc', 'jwarc', 'gzip_extra_sl.warc.gz'))) rs.push(r);
    expect(rs.map((r) => [r.offset, r.length])).toEqual([[0, 459]]);
  });
});
