/**
 * Request and metadata record ids derived from their response's (warc/child-record-id.ts): what
 * the derived ids are (valid UUID URNs of version 8 and the RFC variant, distinct from each other,
 * from their response's and from every version-4 id), that the inverse finds the response, and
 * that nothing else derives.
 */
import { describe, expect, it } from 'vitest';
import { captureIdsOfChild, childRecordId } from '../../core/warc/child-record-id.ts';
import { newRecordId } from '../../core/warc/record-header.ts';

const UUID_URN = /^<urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}>$/;

describe('child record ids', () => {
  it('derives a version-8 id per child that leads back to its capture', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 2000; i++) {
      const capture = newRecordId();
      const request = childRecordId(capture, 'request')!;
      const metadata = childRecordId(capture, 'metadata')!;
      expect(request).toMatch(UUID_URN);
      expect(metadata).toMatch(UUID_URN);
      // The same 16 bytes but the version nibble and the last digit.
      const hex = (id: string) => id.replace(/[^0-9a-f]/g, '');
      const differ = (a: string, b: string) => [...hex(a)].filter((c, j) => c !== hex(b)[j]).length;
      expect(differ(capture.slice(9), request.slice(9))).toBe(2);
      expect(new Set([capture, request, metadata]).size).toBe(3);
      expect(captureIdsOfChild(request)).toContainEqual({ captureId: capture, type: 'request' });
      expect(captureIdsOfChild(metadata)).toContainEqual({ captureId: capture, type: 'metadata' });
      for (const id of [capture, request, metadata]) {
        expect(seen.has(id)).toBe(false);
        seen.add(id);
      }
    }
  });

  it('derives nothing from an id that is not a lower-case version-4 UUID URN, and inverts nothing but a derived id', () => {
    for (const id of [
      null,
      '<urn:uuid:ABCDEF01-2345-4678-9abc-def012345678>',
      'urn:uuid:abcdef01-2345-4678-9abc-def012345678',
      '<urn:uuid:abcdef01-2345-1678-9abc-def012345678>',
      '<urn:uuid:abcdef01-2345-4678-cabc-def012345678>',
      '<urn:uuid:abcdef01-2345-8678-9abc-def012345678>',
      '<http://example.com/record/1>',
      '<urn:uuid:abcdef01-2345-4678-9abc-def01234567>',
    ]) {
      expect(childRecordId(id, 'request'), String(id)).toBeNull();
    }
    expect(captureIdsOfChild(newRecordId())).toEqual([]);
    expect(captureIdsOfChild('<urn:uuid:abcdef01-2345-8678-9abc-DEF012345678>')).toEqual([]);
    expect(captureIdsOfChild('<urn:uuid:abcdef01-2345-8678-9abc-def012345678>')).toEqual([
      { captureId: '<urn:uuid:abcdef01-2345-4678-9abc-def012345679>', type: 'request' },
      { captureId: '<urn:uuid:abcdef01-2345-4678-9abc-def01234567a>', type: 'metadata' },
    ]);
  });
});
