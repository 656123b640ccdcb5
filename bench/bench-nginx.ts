/**
 * Debian's nginx serving a folder on 127.0.0.1 for benchmarks: a real, fast web server, so the
 * crawler (not the fixture) is what gets measured. The config lives in a temp dir; the server
 * runs in the foreground as our child and is killed on close.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

export interface Nginx {
  origin: string;
  /**
   * CPU milliseconds (user + system) the server's processes have used so far: the master and its
   * workers, from /proc. On loopback the server shares the cores with the crawler, so a bench can
   * say how much of the machine was left for Trove.
   */
  cpuMs(): number;
  close(): Promise<void>;
}

/** Clock ticks per second of /proc's CPU times (sysconf(_SC_CLK_TCK), 100 on Linux builds). */
let clockTicks = 0;
function ticksPerSecond(): number {
  if (clockTicks === 0) {
    try {
      clockTicks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      clockTicks = 100;
    }
  }
  return clockTicks;
}

/** utime + stime of a process and of its child processes (nginx's workers), in ticks; 0 once gone. */
function processTreeTicks(pid: number): number {
  let ticks = 0;
  try {
    // The command name may hold spaces and parentheses: the fields start after the last ')'.
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    ticks += Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15 of stat)
    for (const task of fs.readdirSync(`/proc/${pid}/task`)) {
      const kids = fs.readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim();
      for (const kid of kids ? kids.split(' ') : []) ticks += processTreeTicks(Number(kid));
    }
  } catch {
    // Exited between the listing and the read.
  }
  return ticks;
}

export function nginxAvailable(): boolean {
  return fs.existsSync('/usr/sbin/nginx');
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

export async function startNginx(root: string, extraServerConf = ''): Promise<Nginx> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-nginx-'));
  const port = await freePort();
  const conf = `
worker_processes 2;
daemon off;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  include /etc/nginx/mime.types;
  default_type application/octet-stream;
  sendfile on;
  keepalive_requests 100000;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  server {
    listen 127.0.0.1:${port};
    root ${root};
    index index.html;
    ${extraServerConf}
  }
}
`;
  fs.writeFileSync(path.join(dir, 'nginx.conf'), conf);
  const child: ChildProcess = spawn('/usr/sbin/nginx', ['-c', path.join(dir, 'nginx.conf'), '-p', dir, '-e', path.join(dir, 'error.log')], { stdio: 'ignore' });
  // Wait until it accepts connections.
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, '127.0.0.1', () => {
        s.destroy();
        resolve(true);
      });
      s.on('error', () => resolve(false));
    });
    if (ok) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    origin: `http://127.0.0.1:${port}`,
    cpuMs: () => (child.pid ? (1000 * processTreeTicks(child.pid)) / ticksPerSecond() : 0),
    close: async () => {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
