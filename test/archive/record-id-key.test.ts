import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { recordIdKey } from '../../core/archive/record-id-key.ts';

// The rule as a regex, as recordIdKey applied it before it read character codes (issue 20).
const UUID_ID = /^<urn:uuid:([0-9a-f]{8})-([0-9a-f]{4})-([0-9a-f]{4})-([0-9a-f]{4})-([0-9a-f]{12})>$/;
const reference = (id: string): string | Buffer => {
  const m = UUID_ID.exec(id);
  return m ? Buffer.from(m.slice(1).join(''), 'hex') : id;
};

describe('recordIdKey', () => {
  it('stores a lower-case urn:uuid as its 16 bytes and anything else as its text, as the regex rule did', () => {
    let seed = 11;
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) >>> 0) >>> 8) % n;
    const ids: string[] = ['', '<urn:uuid:>', 'urn:uuid:00000000-0000-0000-0000-000000000000', '<urn:uuid:ffffffff-ffff-ffff-ffff-ffffffffffff>', '<urn:uuid:00000000-0000-0000-0000-000000000000>'];
    for (let i = 0; i < 4000; i++) {
      const id = `<urn:uuid:${randomUUID()}>`;
      ids.push(id);
      const chars = [...id];
      // One character changed: an upper-case or non-hex letter, a dash moved, a bracket, non-ASCII.
      chars[rand(chars.length)] = ['A', 'F', 'g', '-', '0', '>', '<', ':', 'é', '\u{1F600}', 'x'][rand(11)]!;
      ids.push(chars.join(''));
      ids.push(id.slice(0, rand(id.length)) + id.slice(rand(id.length)));
      ids.push(id.toUpperCase(), `<urn:uuid:${randomUUID()}>x`, `<urn:UUID:${randomUUID()}>`);
    }
    for (const id of ids) expect(recordIdKey(id), id).toEqual(reference(id));
    expect(recordIdKey(null)).toBeNull();
  });
});
