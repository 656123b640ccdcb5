/**
 * Write, first half: the response and request records (or the revisit) do not depend on the
 * page's links, so they are built and compressed on the thread pool while the links are
 * extracted; write-records adds the metadata record and writes the group. A 304 to a
 * conditional request is a server-not-modified revisit of the earlier crawl's capture.
 */
import { buildCaptureGroup, REVISIT_PROFILE_NOT_MODIFIED, writtenAlone } from '../capture-records.ts';
import type { ProcessResult, Processor } from './crawl-uri.ts';

export const startRecords: Processor = {
  name: 'start-records',
  reads: { settings: ['redactCredentials', 'revisitAlone'], services: ['writer'] },
  shouldProcess: (_ctx, curi) => curi.fetch !== undefined && !curi.captured,
  process(ctx, curi): ProcessResult {
    const f = curi.fetch!;
    const prior = curi.prior;
    if (curi.status === 304 && prior) {
      curi.revisitOf = { recordId: prior.recordId, targetUri: prior.url, date: prior.date, profile: REVISIT_PROFILE_NOT_MODIFIED, payloadDigest: prior.digest };
      curi.annotations.push('duplicate:server-not-modified');
    }
    // An in-memory body goes into the record as the spool's pieces (buildCaptureGroup).
    // A revisit of its own URL is written alone only when asked (--revisit-alone: a recrawl's bytes).
    const revisitAlone = writtenAlone(curi.uri.url, curi.revisitOf, ctx.settings.revisitAlone);
    curi.head = buildCaptureGroup({ url: curi.uri.url, date: new Date(f.startedAt), fetch: f, revisitOf: curi.revisitOf, metadata: null, revisitAlone, redactCredentials: ctx.settings.redactCredentials });
    curi.precompressed = ctx.writer.precompress(curi.head.records);
    curi.precompressed.catch(() => {}); // its error, if any, surfaces where write-records awaits it
    return 'proceed';
  },
};
