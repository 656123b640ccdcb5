/**
 * CPU of the processes under this one (Chromium's browser, GPU, renderer and utility processes),
 * by Chromium process type, and the peak PSS of this process and them, while a QA run goes on:
 * sampled from /proc every 250 ms by the browser bench's sampler (browser-bench-sampler.js), a
 * process of its own, so its reading of /proc neither blocks the event loop QA's tabs all go
 * through nor counts as QA's CPU.
 *
 * Why not the reaped children's CPU (/proc/self/stat cutime + cstime) the QA bench used before:
 * it missed about half of Chromium's CPU (a 4-tab run: 419 ms a page by cutime against 855 ms
 * sampled per thread; 1 tab: 335 against 581), because Chromium's renderers are not reaped back
 * through the browser process into this one. The "Node and Chromium use 0.66 of the 2 cores"
 * reading of the 4-tab QA figures came from that undercount.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export interface TreeSample {
  /** CPU ms by Chromium process type ('other' for a process that is not Chromium's). */
  cpuByType: Record<string, number>;
  peakPssMb: number;
}

export class ChildTreeCpu {
  readonly #child: ChildProcess;
  #out = '';

  /** Starts sampling the processes under this one. */
  constructor() {
    this.#child = spawn(process.execPath, [fileURLToPath(new URL('./browser-bench-sampler.js', import.meta.url)), String(process.pid)], { stdio: ['ignore', 'pipe', 'inherit'] });
    this.#child.stdout!.setEncoding('utf8').on('data', (d: string) => (this.#out += d));
  }

  /** Stops: what the processes used since the start (processes that began before count whole). */
  async stop(): Promise<TreeSample> {
    const ended = new Promise((resolve) => this.#child.on('exit', resolve));
    this.#child.kill('SIGTERM');
    await ended;
    const r = JSON.parse(this.#out) as TreeSample;
    return { cpuByType: r.cpuByType, peakPssMb: r.peakPssMb };
  }
}
