/**
 * A real, throw-away PostgreSQL server for tests: Debian's postgresql binaries, initdb in a temp
 * folder (as the `postgres` OS user when the tests run as root, since postgres refuses to run as
 * root), listening on a free loopback port with its unix socket in that folder. One server per
 * test file process, started lazily and stopped by `stop()` (the file's afterAll) or at exit.
 *
 * `TROVE_TEST_PG_URL=postgres://user@host:port/db` points the tests at an existing server
 * instead; each test then works in a schema of its own (created and dropped here), so nothing of
 * the server's other data is touched.
 *
 * When neither works (no binaries, no such user), `startTestPostgres` returns a reason and the
 * tests that need it skip with that message; CI installs `postgresql` and sets TROVE_REQUIRE_PG=1,
 * so there they run or fail.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';

export interface TestPostgres {
  /** Connection URL of the server's database. */
  url: string;
  /** A new empty schema name, unique to this run (dropped by `stop`). */
  freshSchema(prefix?: string): string;
  /** Restart the server (fast shutdown, start again on the same port); undefined for TROVE_TEST_PG_URL. */
  restart?(): void;
  stop(): Promise<void>;
}

const BIN_DIRS = ['/usr/lib/postgresql/17/bin', '/usr/lib/postgresql/16/bin', '/usr/lib/postgresql/15/bin'];

let started: Promise<TestPostgres | string> | null = null;

/** The shared server for this process, or a reason why none could be had. */
export function startTestPostgres(): Promise<TestPostgres | string> {
  started ??= start().then((r) => {
    // CI sets this once it has installed postgresql, so a server that fails to start fails the run.
    if (typeof r === 'string' && process.env.TROVE_REQUIRE_PG === '1') throw new Error(`TROVE_REQUIRE_PG=1: ${r}`);
    return r;
  });
  return started;
}

async function start(): Promise<TestPostgres | string> {
  const external = process.env.TROVE_TEST_PG_URL;
  if (external) {
    const c = new pg.Client({ connectionString: external });
    try {
      await c.connect();
    } catch (err) {
      return `cannot reach TROVE_TEST_PG_URL: ${(err as Error).message}`;
    } finally {
      await c.end().catch(() => {});
    }
    return withSchemas(external, async () => {}, undefined);
  }
  const bin = BIN_DIRS.find((d) => fs.existsSync(path.join(d, 'initdb')));
  if (!bin) return 'no PostgreSQL server binaries (install Debian package postgresql, or set TROVE_TEST_PG_URL)';
  const asRoot = process.getuid?.() === 0;
  if (asRoot && spawnSync('id', ['-u', 'postgres']).status !== 0) return 'running as root and no `postgres` OS user to run the server as';
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-pg-'));
  const data = path.join(dir, 'data');
  // runuser lives in sbin, which a plain PATH (env -i, cron) may lack.
  const runuser = ['/usr/sbin/runuser', '/sbin/runuser', '/usr/bin/runuser', '/bin/runuser'].find((p) => fs.existsSync(p)) ?? 'runuser';
  const run = (cmd: string, args: string[]) => {
    const argv = asRoot ? [runuser, ['-u', 'postgres', '--', cmd, ...args]] : [cmd, args];
    return execFileSync(argv[0] as string, argv[1] as string[], { stdio: 'pipe', encoding: 'utf8' });
  };
  try {
    if (asRoot) execFileSync('chown', ['postgres', dir]);
    run(path.join(bin, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'trove', '-E', 'UTF8', '--locale=C', '--no-sync']);
    const port = await freePort();
    // Durability is not what these tests check; fsync off keeps a throw-away cluster fast.
    const conf = `-c listen_addresses=127.0.0.1 -p ${port} -k ${dir} -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=100`;
    run(path.join(bin, 'pg_ctl'), ['-D', data, '-l', path.join(dir, 'server.log'), '-o', conf, '-w', '-t', '30', 'start']);
    const url = `postgres://trove@127.0.0.1:${port}/postgres`;
    const stopServer = async () => {
      try {
        run(path.join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } catch {
        // already gone
      }
      fs.rmSync(dir, { recursive: true, force: true });
    };
    process.once('exit', () => void stopServer());
    const restart = () => void run(path.join(bin, 'pg_ctl'), ['-D', data, '-l', path.join(dir, 'server.log'), '-o', conf, '-m', 'fast', '-w', '-t', '30', 'restart']);
    return withSchemas(url, stopServer, restart);
  } catch (err) {
    const log = path.join(dir, 'server.log');
    const detail = fs.existsSync(log) ? fs.readFileSync(log, 'utf8').slice(-500) : (err as Error).message;
    fs.rmSync(dir, { recursive: true, force: true });
    return `could not start a PostgreSQL server: ${detail}`;
  }
}

function withSchemas(url: string, stopServer: () => Promise<void>, restart: (() => void) | undefined): TestPostgres {
  const made: string[] = [];
  let serial = 0;
  const tag = `${process.pid}_${Date.now().toString(36)}`;
  const sql = async (text: string) => {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      await c.query(text);
    } finally {
      await c.end();
    }
  };
  return {
    url,
    restart,
    freshSchema(prefix = 't') {
      const name = `${prefix}_${tag}_${serial++}`.toLowerCase();
      made.push(name);
      return name;
    },
    async stop() {
      if (made.length > 0) await sql(made.map((s) => `DROP SCHEMA IF EXISTS "${s}" CASCADE;`).join('\n')).catch(() => {});
      await stopServer();
    },
  };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}
