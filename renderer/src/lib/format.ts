/** Numbers, sizes, times and codes the way people read them. */

export function formatNumber(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return '–';
  return Math.round(n).toLocaleString('en-US');
}

/**
 * Bytes in decimal units with their SI names (`4.00 kB`, `12.3 MB`, `1.00 GB`: a MB is 1,000,000
 * bytes), the units the New crawl form's MB fields use, so a 1000 MB limit reads as 1.00 GB here.
 */
export function formatBytes(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return '–';
  const units = ['B', 'kB', 'MB', 'GB', 'TB'];
  let v = n;
  let u = 0;
  while (Math.abs(v) >= 1000 && u < units.length - 1) {
    v /= 1000;
    u++;
  }
  return `${u === 0 ? v : v.toFixed(v >= 100 ? 0 : v >= 10 ? 1 : 2)} ${units[u]}`;
}

export function formatRate(n: number, unit: string): string {
  if (!Number.isFinite(n)) return '–';
  return `${n >= 100 ? n.toFixed(0) : n >= 10 ? n.toFixed(1) : n.toFixed(2)} ${unit}`;
}

export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '–';
  const s = Math.floor(ms / 1000);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  if (h > 0) return `${h}h ${String(m).padStart(2, '0')}m`;
  if (m > 0) return `${m}m ${String(sec).padStart(2, '0')}s`;
  return ms < 10_000 && ms % 1000 !== 0 && s === 0 ? `${ms} ms` : `${sec}s`;
}

export function formatDelay(ms: number): string {
  if (ms <= 0) return '0';
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
}

/** `20240305123456` → `2024-03-05 12:34:56` (UTC, as WARC dates are). */
export function formatTs(ts: string | null | undefined): string {
  if (!ts) return '–';
  const t = ts.padEnd(14, '0');
  return `${t.slice(0, 4)}-${t.slice(4, 6)}-${t.slice(6, 8)} ${t.slice(8, 10)}:${t.slice(10, 12)}:${t.slice(12, 14)}`;
}

export function formatDate(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms) || ms <= 0) return '–';
  const d = new Date(ms);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** `2024-03-05` (an <input type=date> value) → `20240305`; '' → undefined. */
export function dateToTs(value: string): string | undefined {
  const digits = value.replace(/\D/g, '');
  return digits.length >= 4 ? digits.slice(0, 14) : undefined;
}

export type Tone = 'ok' | 'info' | 'warn' | 'bad' | 'muted';

/** Colour family of a crawl.log outcome: HTTP status (positive) or Heritrix negative code. */
export function statusTone(code: number | null | undefined): Tone {
  if (code === null || code === undefined) return 'muted';
  if (code < 0) return code === -9998 || code === -5000 ? 'muted' : 'bad';
  if (code < 300) return 'ok';
  if (code < 400) return 'info';
  if (code < 500) return 'warn';
  return 'bad';
}

const OUTCOMES: Record<string, string> = {
  '-1': 'DNS failed',
  '-2': 'connect failed',
  '-3': 'connection lost',
  '-4': 'timeout',
  '-5': 'error',
  '-6': 'prerequisite failed',
  '-7': 'unfetchable URI',
  '-8': 'too many retries',
  '-50': 'protocol error',
  '-51': 'over size limit',
  '-5000': 'out of scope',
  '-5001': 'blocked by rule',
  '-5002': 'blocked (trap)',
  '-5003': 'over quota',
  '-6000': 'deleted',
  '-7001': 'URL too long',
  '-9998': 'robots.txt',
};

export function outcomeLabel(code: number): string {
  return code > 0 ? String(code) : (OUTCOMES[String(code)] ?? String(code));
}

export function stateTone(state: string): Tone {
  switch (state) {
    case 'running':
      return 'ok';
    case 'starting':
    case 'importing':
    case 'pausing':
    case 'stopping':
      return 'info';
    case 'paused':
    case 'interrupted':
      return 'warn';
    case 'failed':
      return 'bad';
    default:
      return 'muted';
  }
}

export function hostOf(url: string | null | undefined): string {
  if (!url) return '';
  try {
    return new URL(url).host;
  } catch {
    return '';
  }
}
