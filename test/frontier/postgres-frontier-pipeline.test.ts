/**
 * Prepared statements piped in one round trip (core/frontier/postgres-frontier-pipeline.ts),
 * against a real PostgreSQL: results in order, later statements see earlier ones, a failure undoes
 * them all, and the connection (its prepared statements included) stays usable after one.
 */
import { afterAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { pipeline } from '../../core/frontier/postgres-frontier-pipeline.ts';
import { startTestPostgres } from '../helpers/postgres-server.ts';

const server = await startTestPostgres();
const skip = typeof server === 'string' ? server : null;
afterAll(async () => {
  if (typeof server !== 'string') await server.stop();
});

if (skip) {
  describe.skip(`piped statements (${skip})`, () => it('needs a server', () => {}));
} else {
  const srv = server as Exclude<typeof server, string>;

  describe('piped statements', () => {
    it('runs them in one transaction, in order; after a failure nothing of it is kept and the same statements run again', async () => {
      const c = new pg.Client({ connectionString: srv.url });
      await c.connect();
      try {
        const schema = srv.freshSchema('pipe');
        await c.query(`CREATE SCHEMA ${schema}; SET search_path TO ${schema}; CREATE TABLE t (n integer NOT NULL)`);
        const add = { name: 'add', text: 'INSERT INTO t SELECT unnest($1::integer[]) RETURNING n', values: [[1, 2]] };
        const sum = { name: 'sum', text: 'SELECT sum(n)::integer AS s, $1::text AS tag FROM t', values: ['a'] };
        const [added, summed] = await pipeline(c, [add, sum]);
        expect(added!.rows.map((r) => r.n)).toEqual([1, 2]);
        expect(summed!.rows).toEqual([{ s: 3, tag: 'a' }]);

        // 'div' fails after 'add' ran (its first time: parsed in this pipeline): both are undone.
        const div = { name: 'div', text: 'SELECT 1 / $1::integer AS q', values: [0] };
        await expect(pipeline(c, [{ ...add, values: [[10]] }, div])).rejects.toThrow(/division by zero/);
        expect((await c.query('SELECT count(*)::integer AS n FROM t')).rows[0].n).toBe(2);

        const [again, divided] = await pipeline(c, [{ ...add, values: [[4]] }, { ...div, values: [2] }]);
        expect(again!.rows).toEqual([{ n: 4 }]);
        expect(divided!.rows).toEqual([{ q: 0 }]);
        // node-postgres's own named queries share the statements.
        expect((await c.query({ name: 'sum', text: sum.text, values: ['b'] })).rows).toEqual([{ s: 7, tag: 'b' }]);
      } finally {
        await c.end();
      }
    });
  });
}
