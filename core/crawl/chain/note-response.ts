/**
 * Reads the fetch for the processors after it: the status, the outcome to log, the media type,
 * and the annotations the fetch itself earned (attempt number, truncation, error code).
 */
import { headMediaType as mimeOf } from '../../formats/media-type.ts';
import type { Processor } from './crawl-uri.ts';

export const noteResponse: Processor = {
  name: 'note-response',
  reads: { settings: [], services: [] },
  shouldProcess: (_ctx, curi) => curi.fetch !== undefined,
  process(_ctx, curi) {
    const f = curi.fetch!;
    if (curi.uri.attempts > 0) curi.annotations.push(`${curi.uri.attempts + 1}t`);
    // Only an archived record can be truncated: garbage instead of a status line is not kept.
    if (f.truncated && f.responseHead) curi.annotations.push(`truncated:${f.truncated}`);
    if (f.error) curi.annotations.push(f.error.code);
    curi.status = f.status ?? f.outcome;
    // A response that broke off after its head (timeout, reset, bad chunking) is archived as the
    // truncated prefix it is, but its outcome is the failure (−4, −3, −50), as Heritrix logs it;
    // the HTTP status stays in the record and the index. A body cut at --max-body-bytes is our
    // own limit, not a failure: it keeps the HTTP status (f.outcome is the status then).
    curi.outcome = f.responseHead ? f.outcome : curi.status;
    curi.mime = mimeOf(f.headers);
    return 'proceed';
  },
};
