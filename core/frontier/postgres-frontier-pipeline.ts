/**
 * Several prepared statements in one round trip: Bind/Describe/Execute for each, then one Sync,
 * which PostgreSQL runs as one implicit transaction (a later statement sees the earlier ones'
 * changes; an error undoes them all and skips the rest). node-postgres sends one query per trip
 * and has no pipelining of its own; its Submittable interface (what pg-cursor is built on) lets a
 * query object write its own protocol messages, and pg's Query collects several results in order.
 * The frontier's worker thread sends its completions and its next claim this way: one trip where
 * it took two, with the statements parsed once per connection (sending the two as one text query
 * instead, parameters written in, cost the server more in parsing and planning than the trip
 * saved: `npm run bench -- pg`).
 */
import pg from 'pg';

export interface PipedStatement {
  /** The prepared statement's name on the connection (the same text under the same name everywhere). */
  name: string;
  text: string;
  values: readonly unknown[];
}

/** The parts of node-postgres's connection a Submittable writes to (pg/lib/connection.js). */
interface Connection {
  parsedStatements: Record<string, string>;
  submittedNamedStatements: Record<string, string>;
  stream: { cork?(): void; uncork?(): void };
  close(msg: { type: 'S'; name: string }): void;
  parse(msg: { text: string; name: string; types: never[] }): void;
  bind(msg: { statement: string; portal: string; values: unknown[] }): void;
  describe(msg: { type: 'P'; name: string }): void;
  execute(msg: { portal: string }): void;
  sync(): void;
}

type Callback = (err: Error | null, res?: pg.QueryResult | pg.QueryResult[]) => void;
const QueryBase = pg.Query as unknown as new (config: { text: string }, values: undefined, callback: Callback) => {
  handleReadyForQuery(con: Connection): void;
};
const prepareValue = (pg as unknown as { utils: { prepareValue(v: unknown): unknown } }).utils.prepareValue;

class Pipeline extends QueryBase {
  private fresh: PipedStatement[] = [];
  private readonly statements: readonly PipedStatement[];

  constructor(statements: readonly PipedStatement[], callback: Callback) {
    super({ text: statements.map((s) => s.name).join('; ') }, undefined, callback);
    this.statements = statements;
  }

  /** Called by the client when the connection is free: write every message, then wait for the answers. */
  submit(con: Connection): Error | null {
    let values: unknown[][];
    try {
      values = this.statements.map((s) => s.values.map(prepareValue));
    } catch (err) {
      return err as Error; // nothing written yet; the client reports it
    }
    this.fresh = this.statements.filter((s) => con.parsedStatements[s.name] === undefined && con.submittedNamedStatements[s.name] === undefined);
    con.stream.cork?.();
    try {
      this.statements.forEach((s, i) => {
        if (this.fresh.includes(s)) {
          // Marked parsed only once the whole pipeline succeeded: after a failure, one parsed then
          // is closed here first (closing a statement that is not there is no error).
          con.close({ type: 'S', name: s.name });
          con.parse({ text: s.text, name: s.name, types: [] });
        }
        con.bind({ statement: s.name, portal: '', values: values[i]! });
        con.describe({ type: 'P', name: '' });
        con.execute({ portal: '' });
      });
      con.sync();
    } finally {
      con.stream.uncork?.();
    }
    return null;
  }

  /** Only reached without an error (the client drops a query that failed before its ReadyForQuery). */
  override handleReadyForQuery(con: Connection): void {
    for (const s of this.fresh) con.parsedStatements[s.name] = s.text;
    super.handleReadyForQuery(con);
  }
}

/** Each statement's result, in order; one round trip. */
export function pipeline(client: pg.Client, statements: readonly PipedStatement[]): Promise<pg.QueryResult[]> {
  return new Promise((resolve, reject) => {
    client.query(
      new Pipeline(statements, (err, res) => {
        if (err) reject(err);
        else resolve(Array.isArray(res) ? res : [res!]);
      }) as unknown as pg.Submittable,
    );
  });
}
