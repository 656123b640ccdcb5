/**
 * Capture-index rows of one fetch as a crawl indexes them (response, then its request and
 * metadata, one after another in a file), and what a lookup returns for a row: the rows the
 * compact-row (version 7) and folded-children (version 10) tests index by hand.
 */
import type { CaptureRow, RecordRow } from '../../core/archive/capture-index.ts';
import { childRecordId } from '../../core/warc/child-record-id.ts';
import { newRecordId } from '../../core/warc/record-header.ts';

/**
 * A fetch's three rows at `offset` (lengths 100, 80 and 60). The children's record ids are random
 * (what a build before version 10 wrote, and other tools write) unless `derived`, as a crawl writes them now.
 */
export function fetchRows(fileId: number, offset: number, over: Partial<RecordRow> = {}, ids: 'random' | 'derived' = 'random'): RecordRow[] {
  const response: RecordRow = {
    fileId,
    offset,
    length: 100,
    recordType: 'response',
    recordId: newRecordId(),
    targetUri: 'http://example.com/a',
    urlkey: 'com,example)/a',
    ts: '20240305102030',
    date: '2024-03-05T10:20:30.123Z',
    mime: 'text/html',
    status: 200,
    payloadDigest: 'sha1:AAAA',
    method: 'GET',
    contentLength: 90,
    ...over,
  };
  const childId = (type: 'request' | 'metadata') => (ids === 'derived' ? childRecordId(response.recordId, type) : newRecordId());
  const shared = { fileId, targetUri: response.targetUri, urlkey: response.urlkey, ts: response.ts, date: response.date, concurrentTo: response.recordId };
  return [
    response,
    {
      ...shared, offset: offset + 100, length: 80, recordType: 'request', recordId: childId('request'), mime: 'application/http',
      status: null, payloadDigest: null, method: 'GET', contentLength: 70,
    },
    {
      ...shared, offset: offset + 180, length: 60, recordType: 'metadata', recordId: childId('metadata'), mime: 'application/warc-fields',
      status: null, payloadDigest: null, contentLength: 50,
    },
  ];
}

/** What byId returns for a row as it was given (every optional field present). */
export function asRead(r: RecordRow, id: number, file: { path: string; name: string }): CaptureRow {
  return {
    refersTo: null, refersToUri: null, refersToDate: null, concurrentTo: null, method: null, contentLength: null, truncated: null, title: null,
    ...r,
    page: r.page ?? false,
    id,
    filePath: file.path,
    fileName: file.name,
  };
}
