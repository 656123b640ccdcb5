/**
 * Reliability benchmark (issue: hostile web, hostile files). The hostile site
 * (test/fixtures/hostile-site.ts: every hostile path linked from one index page, with a 512 MiB
 * gzip bomb) crawled by Trove in a child process (bench/crawl-child.js), so the peak RSS is the
 * crawler's own, with every timeout at 30 s. The slow paths (/slow-drip, /slow-headers) take the
 * full 30 s each; 8 slots and 8 connections per host let them overlap with each other and with
 * everything else.
 *
 * Prints the total time (target < 2 min), the crawler's peak RSS (target < 500 MB), the outcome
 * of every URI, and the WARC validity: every record read back by warcio (streamed, never held
 * whole) and every file through `checkWarcFile`.
 *
 *   node bench/reliability-bench.ts
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { WARCParser } from 'warcio';
import { checkWarcFile, formatProblem } from '../core/warc/check-warc.ts';
import { startHostileSite, SLOW_PATHS } from '../test/fixtures/hostile-site.ts';
import { cliNodeEnv, cliNodeFlags } from './cli-node-flags.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const TIMEOUT_S = 30;
const BOMB_MB = 512;
const MB = 1024 * 1024;

interface ChildResult {
  ms: number;
  maxRssMb: number;
  downloaded: number;
  failed: number;
  state: string;
  reason: string;
}

/** Run bench/crawl-child.js without blocking this process (it serves the hostile site). */
function crawlInChild(dir: string, settings: Record<string, unknown>): Promise<ChildResult & { sampledPeakMb: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...cliNodeFlags(), path.join(here, 'crawl-child.js'), dir, JSON.stringify(settings)], { stdio: ['ignore', 'pipe', 'pipe'], env: cliNodeEnv() });
    let out = '';
    let err = '';
    let sampled = 0;
    // Cross-check of the child's own maxRSS figure, read from /proc while it runs.
    const sampler = setInterval(() => {
      try {
        const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${child.pid}/status`, 'utf8'));
        if (m) sampled = Math.max(sampled, Number(m[1]) / 1024);
      } catch {
        /* not on Linux, or the child has exited */
      }
    }, 100);
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      clearInterval(sampler);
      if (code !== 0) return reject(new Error(`crawl child exited with ${code}: ${err.slice(-2000)}`));
      const last = out.trim().split('\n').pop()!;
      resolve({ ...(JSON.parse(last) as ChildResult), sampledPeakMb: Math.round(sampled) });
    });
  });
}

/** Every record of a WARC read with warcio, payloads streamed; the count, or the error. */
async function warcioReadBack(file: string): Promise<{ records: number; payloadBytes: number; error: string | null }> {
  let records = 0;
  let payloadBytes = 0;
  try {
    for await (const record of new WARCParser(fs.createReadStream(file))) {
      records++;
      for await (const chunk of record) payloadBytes += chunk.length;
    }
    return { records, payloadBytes, error: null };
  } catch (e) {
    return { records, payloadBytes, error: (e as Error).message };
  }
}

export async function runReliabilityBench(): Promise<Record<string, number>> {
  const site = await startHostileSite({ bombMb: BOMB_MB, hugeMb: 200 });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-reliability-bench-'));
  try {
    const slots = Math.max(8, SLOW_PATHS.length);
    const settings = {
      name: 'reliability-bench',
      seeds: [site.seed],
      scope: 'any',
      maxHops: 5,
      exclude: ['/l/\\d+$'], // /many-links' 20,000 kept links: logged as rejections, not fetched
      concurrency: slots,
      perHost: slots,
      delayFactor: 0,
      minDelayMs: 0,
      maxDelayMs: 0,
      maxRetries: 0,
      minFreeDiskBytes: 0,
      connectTimeoutS: TIMEOUT_S,
      headersTimeoutS: TIMEOUT_S,
      idleTimeoutS: TIMEOUT_S,
      fetchTimeoutS: TIMEOUT_S,
      // /endless and /huge (200 MB) stop here, so the read-back stays quick; the other caps are the defaults.
      maxBodyBytes: 100 * MB,
    };
    console.log(`reliability bench: crawling ${site.seed} (${Object.keys(site.urls).length} hostile paths, ${BOMB_MB} MiB gzip bomb, timeouts ${TIMEOUT_S} s)`);
    const t0 = performance.now();
    const child = await crawlInChild(dir, settings);
    const totalMs = performance.now() - t0;

    const log = fs
      .readFileSync(path.join(dir, 'logs', 'crawl.log'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => l.split(/\s+/));
    const perUri = new Map<string, number>();
    for (const f of log) perUri.set(f[3]!, (perUri.get(f[3]!) ?? 0) + 1);
    const duplicates = [...perUri.values()].filter((n) => n > 1).length;
    console.log('outcomes (status, bytes, ms, URI, annotations):');
    for (const f of log) {
      const ms = /\+(\d+)$/.exec(f[8] ?? '')?.[1] ?? '-';
      const url = f[3]!.length > 90 ? `${f[3]!.slice(0, 87)}…` : f[3]!;
      console.log(`  ${f[1]!.padStart(5)} ${f[2]!.padStart(10)} ${ms.padStart(6)} ${url} ${f[11] ?? '-'}`);
    }
    const missing = Object.values(site.urls).filter((u) => !perUri.has(u));

    const warcDir = path.join(dir, 'warcs');
    const files = fs.readdirSync(warcDir).filter((n) => /\.warc(\.gz)?$/.test(n));
    let warcioRecords = 0;
    let warcioErrors = 0;
    let checkRecords = 0;
    let checkErrors = 0;
    let checkWarnings = 0;
    for (const name of files) {
      const p = path.join(warcDir, name);
      const back = await warcioReadBack(p);
      warcioRecords += back.records;
      if (back.error) {
        warcioErrors++;
        console.log(`  warcio could not read ${name}: ${back.error}`);
      }
      const check = await checkWarcFile(p);
      checkRecords += check.records;
      checkErrors += check.errors;
      checkWarnings += check.warnings;
      for (const prob of check.problems) console.log(`  ${formatProblem(prob)}`);
    }
    const warcBytes = files.reduce((s, n) => s + fs.statSync(path.join(warcDir, n)).size, 0);

    const figures: Record<string, number> = {
      totalMs: Math.round(totalMs),
      crawlMs: Math.round(child.ms),
      peakRssMb: Math.round(child.maxRssMb),
      sampledPeakRssMb: child.sampledPeakMb,
      uris: perUri.size,
      urisLoggedTwice: duplicates,
      hostilePathsWithoutOutcome: missing.length,
      downloaded: child.downloaded,
      failed: child.failed,
      warcFiles: files.length,
      warcBytes,
      warcioRecords,
      warcioErrors,
      checkRecords,
      checkErrors,
      checkWarnings,
      finished: child.state === 'finished' ? 1 : 0,
    };
    const verdict = (ok: boolean) => (ok ? 'ok' : 'MISSED');
    console.log(
      `total ${(totalMs / 1000).toFixed(1)} s (target < 120 s: ${verdict(totalMs < 120_000)}), ` +
        `crawler peak RSS ${figures.peakRssMb} MB (sampled ${figures.sampledPeakRssMb} MB; target < 500 MB: ${verdict(figures.peakRssMb! < 500)}), ` +
        `${figures.uris} URIs (${duplicates} logged twice, ${missing.length} hostile paths without an outcome), state ${child.state}/${child.reason}`,
    );
    console.log(
      `WARC: ${files.length} files, ${(warcBytes / MB).toFixed(1)} MB; warcio read ${warcioRecords} records (${warcioErrors} files failed); ` +
        `check: ${checkRecords} records, ${checkErrors} errors, ${checkWarnings} warnings (${verdict(checkErrors === 0 && warcioErrors === 0 && checkRecords === warcioRecords)})`,
    );
    return figures;
  } finally {
    await site.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const figures = await runReliabilityBench();
  console.log(JSON.stringify(figures));
}
