/**
 * The record ids of a capture's request and metadata records, derived from the capture's own
 * (issue 20: database bytes per URI). A crawl writes three records per fetch; when the request's
 * and the metadata record's ids follow from the response's, the capture index need not store or
 * index them (capture-folds.ts): each is the response's UUID with the version nibble set to 8
 * (RFC 9562 §5.8, a UUID whose bits follow a scheme of its own, so it can never equal a random
 * version-4 id) and the last hex digit XORed with the child's place (1 request, 2 metadata). The
 * other 121 random bits are the response's, so derived ids are as unique as the response ids
 * they come from, and two records of one capture never share one.
 *
 * Only a lower-case `<urn:uuid:…>` of version 4 and the RFC variant derives (what newRecordId
 * writes); anything else gets null and the caller takes a fresh random id.
 */

export type ChildRecordType = 'request' | 'metadata';

/** A child's place among its capture's children: what its id's last digit is XORed with, and its order in the file. */
export const CHILD_PLACE: Readonly<Record<ChildRecordType, number>> = { request: 1, metadata: 2 };

// `<urn:uuid:xxxxxxxx-xxxx-Vxxx-Nxxx-xxxxxxxxxxxx>`: where the version (V), variant (N) and last digits sit.
const LENGTH = 47;
const VERSION_AT = 24;
const VARIANT_AT = 29;
const LAST_AT = 45;
const UUID_URN = /^<urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}>$/;
const HEX = '0123456789abcdef';

function withDigits(id: string, version: string, place: number): string {
  const last = HEX[HEX.indexOf(id[LAST_AT]!) ^ place]!;
  return `${id.slice(0, VERSION_AT)}${version}${id.slice(VERSION_AT + 1, LAST_AT)}${last}>`;
}

function hasShape(id: string, version: string): boolean {
  return id.length === LENGTH && id[VERSION_AT] === version && '89ab'.includes(id[VARIANT_AT]!) && UUID_URN.test(id);
}

/** The id of a capture's request or metadata record, or null when the capture's id does not derive. */
export function childRecordId(captureId: string | null, type: ChildRecordType): string | null {
  if (captureId === null || !hasShape(captureId, '4')) return null;
  return withDigits(captureId, '8', CHILD_PLACE[type]);
}

/** The capture ids a derived child id may come from, one per place (the inverse of childRecordId); none for any other id. */
export function captureIdsOfChild(childId: string): { captureId: string; type: ChildRecordType }[] {
  if (!hasShape(childId, '8')) return [];
  return (Object.keys(CHILD_PLACE) as ChildRecordType[]).map((type) => ({ captureId: withDigits(childId, '4', CHILD_PLACE[type]), type }));
}
