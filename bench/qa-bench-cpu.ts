/**
 * CPU of the processes under this one (Chromium's browser, GPU, renderer and utility processes),
 * by Chromium process type, sampled from /proc every 250 ms (Linux) while a QA run goes on.
 *
 * Why not the reaped children's CPU (/proc/self/stat cutime + cstime) the QA bench used before:
 * it missed about half of Chromium's CPU (a 4-tab run: 419 ms a page by cutime against 855 ms
 * sampled per thread; 1 tab: 335 against 581), because Chromium's renderers are not reaped back
 * through the browser process into this one. The "Node and Chromium use 0.66 of the 2 cores"
 * reading of the 4-tab QA figures came from that undercount. A process's CPU after its last
 * sample is missed (a few ms).
 */
import fs from 'node:fs';

const TICK_MS = 10; // USER_HZ is 100 on Linux

/** The pids of the processes under `root` (not `root` itself), from /proc. */
function descendants(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const ppid = Number(/^PPid:\s+(\d+)/m.exec(fs.readFileSync(`/proc/${name}/status`, 'utf8'))?.[1] ?? 0);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(name)]);
    } catch {
      /* ended meanwhile */
    }
  }
  const out: number[] = [];
  const stack = [...(children.get(root) ?? [])];
  while (stack.length) {
    const pid = stack.pop()!;
    out.push(pid);
    stack.push(...(children.get(pid) ?? []));
  }
  return out;
}

export class ChildTreeCpu {
  readonly #seen = new Map<number, { type: string; ticks: number; base: number }>();
  readonly #timer: NodeJS.Timeout;

  /** Starts sampling; what the processes already under this one had used is not counted. */
  constructor() {
    this.#sample(true);
    this.#timer = setInterval(() => this.#sample(false), 250);
  }

  #sample(first: boolean): void {
    for (const pid of descendants(process.pid)) {
      try {
        const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
        const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        const ticks = Number(f[11]) + Number(f[12]);
        const old = this.#seen.get(pid);
        let type = old?.type;
        // A zygote's child names its type once it has set its title: asked again until then.
        if (!type || type === 'zygote') {
          const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
          type = /chrom/i.test(cmd) ? (/--type=(\S+)/.exec(cmd)?.[1] ?? 'browser') : 'other';
        }
        this.#seen.set(pid, { type, ticks, base: old ? old.base : first ? ticks : 0 });
      } catch {
        /* ended meanwhile */
      }
    }
  }

  /** Stops; CPU ms by process type since the start. Call before the browser is closed. */
  stop(): Record<string, number> {
    this.#sample(false);
    clearInterval(this.#timer);
    const out: Record<string, number> = {};
    for (const { type, ticks, base } of this.#seen.values()) out[type] = (out[type] ?? 0) + (ticks - base) * TICK_MS;
    return out;
  }
}
