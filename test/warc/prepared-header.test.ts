/**
 * A prepared record's header is checked once, when the record is prepared, and encoded without
 * a second check: the bytes must be what the checking builder (buildRecordHeader) gives for the
 * same fields, pinned here as the writer wrote them before, and whatever the builder refused
 * must now be refused when the record is prepared.
 */
import { describe, expect, it } from 'vitest';
import { isTroveError } from '../../core/errors.ts';
import { buildRecordHeader } from '../../core/warc/record-header.ts';
import { prepareRecord, type RecordInput } from '../../core/warc/write-record-input.ts';

const date = new Date('2026-11-26T09:00:00.123Z');
const response: RecordInput = {
  type: 'response',
  targetUri: 'http://127.0.0.1:8080/p/1.html',
  date,
  recordId: '<urn:uuid:00000000-0000-4000-8000-000000000001>',
  contentType: 'application/http; msgtype=response',
  fields: [
    ['WARC-Concurrent-To', '<urn:uuid:00000000-0000-4000-8000-000000000002>'],
    ['WARC-IP-Address', '127.0.0.1'],
  ],
  blockParts: [Buffer.from('HTTP/1.1 200 OK\r\n\r\nhi')],
};
const info = '<urn:uuid:00000000-0000-4000-8000-00000000000f>';

function refused(fn: () => unknown): boolean {
  try {
    fn();
  } catch (err) {
    return isTroveError(err, 'WARC_BAD_FIELD');
  }
  return false;
}

describe('prepared record header', () => {
  it('is the bytes the checking builder gives, as the writer wrote them before', () => {
    const rec = prepareRecord(response, [['WARC-Filename', 'x.warc.gz']]);
    const header = rec.header(info);
    expect(header.equals(buildRecordHeader(rec.fields(info)))).toBe(true);
    expect(header.toString('utf8')).toBe(
      'WARC/1.1\r\n' +
        'WARC-Type: response\r\n' +
        'WARC-Record-ID: <urn:uuid:00000000-0000-4000-8000-000000000001>\r\n' +
        'WARC-Date: 2026-11-26T09:00:00.123Z\r\n' +
        'WARC-Target-URI: http://127.0.0.1:8080/p/1.html\r\n' +
        'WARC-Filename: x.warc.gz\r\n' +
        `WARC-Warcinfo-ID: ${info}\r\n` +
        'WARC-Concurrent-To: <urn:uuid:00000000-0000-4000-8000-000000000002>\r\n' +
        'WARC-IP-Address: 127.0.0.1\r\n' +
        'Content-Type: application/http; msgtype=response\r\n' +
        'WARC-Block-Digest: sha1:FNMQPCZGDE2HALVRMGIGENQEBHISOUSJ\r\n' +
        'Content-Length: 21\r\n' +
        '\r\n',
    );
  });

  it('is made once per warcinfo id, and again for another file', () => {
    const rec = prepareRecord(response);
    expect(rec.fields(info)).toBe(rec.fields(info));
    expect(rec.header(info)).toBe(rec.header(info));
    const other = '<urn:uuid:00000000-0000-4000-8000-00000000000e>';
    expect(rec.header(other).toString()).toContain(`WARC-Warcinfo-ID: ${other}\r\n`);
    expect(rec.header(other).equals(buildRecordHeader(rec.fields(other)))).toBe(true);
    expect(rec.header(null).toString()).not.toContain('WARC-Warcinfo-ID');
  });

  it('refuses at preparation what the builder would have refused: control characters in a given id, leading fields, a warcinfo id', () => {
    expect(refused(() => prepareRecord({ ...response, recordId: '<urn:x\u0001y>' }))).toBe(true);
    expect(refused(() => prepareRecord(response, [['WARC-Filename', 'a\nWARC-Type: x']]))).toBe(true);
    expect(refused(() => prepareRecord(response, [['Bad Name', 'x']]))).toBe(true);
    expect(refused(() => prepareRecord(response).header('<urn:x>\r\nX: y'))).toBe(true);
  });

  it('a short record (a revisit of its own URL, its request) has neither WARC-Warcinfo-ID nor WARC-Block-Digest, and needs its block in memory', () => {
    const names = (r: RecordInput) => prepareRecord(r).fields(info).map(([k]) => k);
    expect(names(response)).toEqual(expect.arrayContaining(['WARC-Warcinfo-ID', 'WARC-Block-Digest']));
    const short = names({ ...response, short: true });
    expect(short).not.toContain('WARC-Warcinfo-ID');
    expect(short).not.toContain('WARC-Block-Digest');
    expect(short).toEqual(names(response).filter((k) => k !== 'WARC-Warcinfo-ID' && k !== 'WARC-Block-Digest'));
    const streamed = { length: 2, stream: () => { throw new Error('not read'); } };
    for (const bad of [{ ...response, short: true, blockDigest: 'sha1:AAAA' }, { ...response, short: true, blockParts: [streamed] }] as RecordInput[]) {
      expect(() => prepareRecord(bad)).toThrow(expect.objectContaining({ code: 'WARC_BAD_RECORD' }));
    }
  });
});
