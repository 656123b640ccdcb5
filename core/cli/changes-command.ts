/**
 * `trove changes <A> <B> [--diff URL] [--json] [--csv]`: the pages added, removed, changed and
 * unchanged from A to B (core/export/change-report.ts says what counts as a change). A side is a
 * crawl or archive directory, or `DIR@TIMESTAMP` for that archive as it was at that time (14
 * digits, or fewer for a whole year, month or day), so one archive can be compared with itself.
 */
import type { Command } from 'commander';
import type { Archive } from '../archive/archive-dir.ts';
import type { ChangeSide } from '../export/change-report.ts';
import { TroveError } from '../errors.ts';
import type { CommandIo } from './robots-command.ts';

/** `dir` or `dir@20261205` → the directory and the time. */
export function parseChangeSide(arg: string): { dir: string; at?: string } {
  const m = /^(.*)@(\d{4,14})$/.exec(arg);
  if (!m) return { dir: arg };
  if (m[2]!.length % 2 !== 0) throw new TroveError('CAPTURE_BAD_TIMESTAMP', `${arg}: the time after @ is YYYY[MM[DD[hh[mm[ss]]]]] (UTC digits)`, { arg });
  return { dir: m[1]!, at: m[2]! };
}

function csvCell(v: string | number): string {
  const s = String(v);
  return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function registerChangesCommand(program: Command, io: CommandIo): void {
  program
    .command('changes')
    .description('Pages added, removed, changed and unchanged between two crawls (or one archive at two times: DIR@TIMESTAMP)')
    .argument('<a>', 'the earlier crawl or archive directory, or DIR@TIMESTAMP')
    .argument('<b>', 'the later one')
    .option('--diff <url>', "print this page's text diff (unified, one sentence a line)")
    .option('--json', 'the whole report as JSON')
    .option('--csv', 'one line per page: url,change,text_change,a_ts,b_ts')
    .option('--all', 'list unchanged pages too (text output)')
    .action(async (aArg: string, bArg: string, opts: { diff?: string; json?: boolean; csv?: boolean; all?: boolean }) => {
      // Loaded here, not at the top: the CLI's other commands (a crawl above all) never need them.
      const [{ openArchive }, { changeReport, pageTextDiff, changeSummary }] = await Promise.all([import('../archive/archive-dir.ts'), import('../export/change-report.ts')]);
      const open: Archive[] = [];
      const side = (arg: string): ChangeSide => {
        const { dir, at } = parseChangeSide(arg);
        const archive = openArchive(dir, { create: false });
        open.push(archive);
        return at ? { archive, at } : { archive };
      };
      try {
        const a = side(aArg);
        const b = side(bArg);
        if (opts.diff) {
          const d = await pageTextDiff(a, b, opts.diff);
          if (d === null) throw new TroveError('CLI_USAGE', `--diff ${opts.diff}: neither side holds this page`, { url: opts.diff });
          io.stdout.write(d);
          return;
        }
        const report = await changeReport(a, b);
        if (opts.json) {
          io.stdout.write(JSON.stringify(report, null, 2) + '\n');
        } else if (opts.csv) {
          io.stdout.write('url,change,text_change,a_ts,b_ts\n');
          for (const p of report.pages) io.stdout.write([p.url, p.kind, p.textChange, p.a?.ts ?? '', p.b?.ts ?? ''].map(csvCell).join(',') + '\n');
        } else {
          const mark = { added: '+', removed: '-', changed: '~', unchanged: '=' } as const;
          for (const p of report.pages) {
            if (p.kind === 'unchanged' && !opts.all) continue;
            io.stdout.write(`${mark[p.kind]} ${p.kind.padEnd(9)} ${p.url}${p.kind === 'changed' ? `  (${p.textChange} chars of text)` : ''}\n`);
          }
          io.stdout.write(`${changeSummary(report.counts)}, ${report.counts.unchanged} unchanged\n`);
        }
      } finally {
        for (const a of open) a.close();
      }
    });
}
