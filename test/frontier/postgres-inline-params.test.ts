/**
 * The parameters the PostgreSQL frontier writes into a statement's text as literals (to send a
 * transaction's statements in one round trip) come back from a real server exactly as given:
 * quotes, backslashes, newlines and non-ASCII in URLs, negative numbers after a minus sign, 64-bit
 * fingerprints, nulls and arrays of each (empty ones typed by their cast).
 */
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { inlineParams } from '../../core/frontier/postgres-inline-params.ts';
import { startTestPostgres } from '../helpers/postgres-server.ts';

const server = await startTestPostgres();
if (typeof server === 'string') console.warn(`inline params test skipped: ${server}`);
afterAll(async () => {
  if (typeof server !== 'string') await server.stop();
});

describe('inlineParams', () => {
  it('refuses what has no literal, and a placeholder without its parameter', () => {
    expect(() => inlineParams('SELECT $1', [Number.NaN])).toThrow(/finite/);
    expect(() => inlineParams('SELECT $1', [{}])).toThrow(/no SQL literal/);
    expect(() => inlineParams('SELECT $2', [1])).toThrow(/\$2/);
    // $10 is the tenth parameter, not $1 followed by 0.
    expect(inlineParams('SELECT $10', Array.from({ length: 10 }, (_, i) => i + 1))).toBe('SELECT 10');
  });

  it.skipIf(typeof server === 'string')('round-trips strings, numbers, nulls and arrays through a real server', async () => {
    const pgs = server as Exclude<typeof server, string>;
    const c = new pg.Client({ connectionString: pgs.url });
    await c.connect();
    try {
      const nasty = ["it's", 'back\\slash', "both \\' and '' ", 'line\nbreak', 'ünïcödé ☃', '$1 not a parameter', '-- not a comment', ''];
      const fp = (-(2n ** 63n)).toString();
      const text = inlineParams('SELECT $1::text[] AS s, 5 - $2 AS d, $3::bigint[] AS f, $4::text AS n, $5::integer[] AS e, $6::boolean[] AS b', [
        nasty,
        -3,
        [fp, null, '9223372036854775807'],
        null,
        [],
        [true, false, null],
      ]);
      const r = (await c.query(text)).rows[0];
      expect(r.s).toEqual(nasty);
      expect(r.d).toBe(8);
      expect(r.f).toEqual([fp, null, '9223372036854775807']);
      expect(r.n).toBeNull();
      expect(r.e).toEqual([]);
      expect(r.b).toEqual([true, false, null]);
    } finally {
      await c.end();
    }
  });
});
