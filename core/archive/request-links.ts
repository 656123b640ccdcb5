/**
 * A response's row takes its method from the request record sent for it, and a POST (PUT…)
 * response the lookup key pywb gives it: method and request body in the query. Imports and
 * recovery meet the request before or after its response (both orders occur) and link them by
 * WARC-Concurrent-To within a window of recent records; a live crawl links the two it just wrote.
 */
import { surtKey } from '../scope/surt.ts';
import type { RecordRow } from './capture-index.ts';
import type { ImportedRow } from './import-record-row.ts';

/** Recent responses and requests remembered, per kind. */
const WINDOW = 64;

/** Apply the request's method (and POST key) to its response's row. */
export function applyRequest(response: RecordRow, request: { method: string; postQuery: string | null }): void {
  response.method = request.method.toUpperCase();
  if (response.method === 'GET' || !response.targetUri) return;
  response.page = false; // a page is what a GET shows; a POST result stays searchable but is not listed
  response.urlkey = surtKey(response.targetUri, { method: response.method, ...(request.postQuery ? { postQuery: request.postQuery } : {}) });
}

/** Links rows read in file order; rows are changed in place, so keep them unwritten a little while. */
export class RequestLinks {
  readonly #responses = new Map<string, ImportedRow>();
  readonly #requests = new Map<string, ImportedRow>();

  add(row: ImportedRow): void {
    const r = row.row;
    if (row.request) {
      remember(this.#requests, r.recordId, row);
      const response = row.request.responseId ? this.#responses.get(row.request.responseId) : undefined;
      if (response) applyRequest(response.row, row.request);
      return;
    }
    if (r.recordType !== 'response' && r.recordType !== 'revisit') return;
    remember(this.#responses, r.recordId, row);
    const request = r.concurrentTo ? this.#requests.get(r.concurrentTo) : undefined;
    if (request) applyRequest(r, request.request!);
  }
}

function remember(map: Map<string, ImportedRow>, id: string | null, row: ImportedRow): void {
  if (!id) return;
  map.set(id, row);
  if (map.size > WINDOW) map.delete(map.keys().next().value!);
}
