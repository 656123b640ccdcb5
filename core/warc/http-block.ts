/**
 * Whether a WARC record's block is an HTTP message, so its head can be parsed
 * (formats/http-head.ts) and its payload told apart from the head.
 */
import { mediaType } from '../formats/media-type.ts';
import type { WarcRecordHead } from './read-record.ts';

/**
 * Whether a record's block is an HTTP message: a response, request or revisit whose
 * Content-Type says so (application/http, message/http), or that has no Content-Type and an
 * http(s) target (older producers). dns: responses and the like are not.
 */
export function blockIsHttp(r: WarcRecordHead): boolean {
  if (r.type !== 'response' && r.type !== 'request' && r.type !== 'revisit') return false;
  const type = mediaType(r.get('Content-Type'));
  if (type === 'application/http' || type === 'message/http') return true;
  return type === null && /^https?:/i.test(r.targetUri ?? '');
}
