/**
 * Trap-detector benchmark (issue 14): the detector scored as a classifier. The real crawler crawls
 * the fixture sites of test/fixtures/trap-sites.ts (a documentation site and a flat 5,000-id
 * catalogue that must raise nothing; an endless calendar, a path loop, session ids and an
 * ever-growing query that must each be flagged) and Debian's Python docs under nginx (skipped
 * with a message when nginx or python3-doc is missing). Trap sites are crawled with the default
 * trap rules opened up (hops, path repeats, depth, URL length), so the detector alone meets the
 * trap, stopped at 400 URIs; then the trap sites once more with the default rules, for what a
 * user sees (a trap those rules stop before it is CHAIN_MIN URLs long is not counted).
 *
 * Printed: per site the warnings (pattern, evidence, URLs into the trap when flagged) and how the
 * suggested excludes split the fetched URLs; then
 * - warning precision: warnings whose exclude matches trap URLs only / all warnings;
 * - site recall: trap sites with a correct warning / trap sites;
 * - URL precision and recall of the suggested excludes over every fetched URL.
 *
 *   node bench/trap-bench.ts
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { TrapWarning } from '../core/api/crawl-snapshot.ts';
import type { CrawlSettings } from '../core/api/settings.ts';
import { CHAIN_MIN } from '../core/crawl/trap-detector.ts';
import { crawlSite, ORDINARY_SITES, RULES_OFF, TRAP_SITES, type TrapSite } from '../test/fixtures/trap-sites.ts';
import { nginxAvailable, startNginx } from './bench-nginx.ts';

const DOCS = '/usr/share/doc/python3-doc/html';

interface Tally {
  warnings: number;
  correctWarnings: number;
  trapSites: number;
  trapSitesFlagged: number;
  matchedTrap: number;
  matchedOther: number;
  trapUrls: number;
}

function emptyTally(): Tally {
  return { warnings: 0, correctWarnings: 0, trapSites: 0, trapSitesFlagged: 0, matchedTrap: 0, matchedOther: 0, trapUrls: 0 };
}

/** Score one crawl's warnings against the site's ground truth; prints a block, adds to `t`. */
function score(name: string, site: Pick<TrapSite, 'hasTrap' | 'isTrap'>, urls: string[], traps: TrapWarning[], t: Tally): void {
  const trapUrls = urls.filter((u) => site.isTrap(u));
  const res = traps.map((w) => new RegExp(w.suggestedExclude));
  const matched = urls.filter((u) => res.some((re) => re.test(u)));
  const mTrap = matched.filter((u) => site.isTrap(u)).length;
  t.matchedTrap += mTrap;
  t.matchedOther += matched.length - mTrap;
  t.trapUrls += trapUrls.length;
  let flagged = false;
  console.log(`\n  ${name}: ${urls.length} URLs fetched, ${trapUrls.length} of them in a trap; ${traps.length} warning${traps.length === 1 ? '' : 's'}`);
  for (const w of traps) {
    const re = new RegExp(w.suggestedExclude);
    const hits = urls.filter((u) => re.test(u));
    const wrong = hits.filter((u) => !site.isTrap(u));
    const correct = hits.length > 0 && wrong.length === 0;
    const covers = trapUrls.length > 0 && hits.length >= 0.9 * trapUrls.length;
    t.warnings++;
    if (correct) t.correctWarnings++;
    if (correct && covers) flagged = true;
    console.log(`    ${correct ? 'TRUE ' : 'FALSE'} ${w.pattern}  [${w.kind}] after ${w.membersWhenFlagged} URLs of it: ${w.evidence}`);
    console.log(`          exclude ${w.suggestedExclude}`);
    console.log(`          matches ${hits.length} fetched URLs: ${hits.length - wrong.length} in the trap, ${wrong.length} not${wrong.length ? ` (e.g. ${wrong[0]})` : ''}; the trap has ${trapUrls.length}`);
  }
  if (site.hasTrap && !flagged && trapUrls.length < CHAIN_MIN) {
    // The crawl's own rules (path repeats, hops…) stopped it before there was a trap to see.
    console.log(`    stopped by the crawl's rules after ${trapUrls.length} trap URL${trapUrls.length === 1 ? '' : 's'}: nothing to flag, not counted`);
  } else if (site.hasTrap) {
    t.trapSites++;
    if (flagged) t.trapSitesFlagged++;
    if (!flagged) console.log('    MISSED: no warning whose exclude takes in the trap and nothing else');
  }
}

function ratio(a: number, b: number): string {
  return b === 0 ? 'n/a (0/0)' : `${(a / b).toFixed(3)} (${a}/${b})`;
}

function report(label: string, t: Tally): Record<string, number> {
  console.log(`\n  ${label}`);
  console.log(`    warning precision  ${ratio(t.correctWarnings, t.warnings)}`);
  console.log(`    site recall        ${ratio(t.trapSitesFlagged, t.trapSites)}`);
  console.log(`    URL precision      ${ratio(t.matchedTrap, t.matchedTrap + t.matchedOther)}  (fetched URLs the excludes match that are in a trap)`);
  console.log(`    URL recall         ${ratio(t.matchedTrap, t.trapUrls)}  (trap URLs fetched that the excludes match)`);
  return {
    warningPrecision: t.warnings ? t.correctWarnings / t.warnings : 1,
    siteRecall: t.trapSites ? t.trapSitesFlagged / t.trapSites : 1,
    urlPrecision: t.matchedTrap + t.matchedOther ? t.matchedTrap / (t.matchedTrap + t.matchedOther) : 1,
    urlRecall: t.trapUrls ? t.matchedTrap / t.trapUrls : 1,
  };
}

export async function runTrapBench(): Promise<Record<string, number>> {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-trap-bench-'));
  const out: Record<string, number> = {};
  try {
    const passes: [string, Partial<CrawlSettings>][] = [
      ['default trap rules opened up (the detector alone)', { ...RULES_OFF, limitUris: 400 }],
      ['default settings', { limitUris: 400 }],
    ];
    for (const [pi, [label, trapSettings]] of passes.entries()) {
      console.log(`\n=== pass ${pi + 1}: trap sites with ${label}`);
      const t = emptyTally();
      // The ordinary sites and the Python docs are crawled whole with the default settings, once.
      for (const start of pi === 0 ? [...ORDINARY_SITES, ...TRAP_SITES] : TRAP_SITES) {
        const site = await start();
        try {
          const settings = site.hasTrap ? trapSettings : { concurrency: 8, perHost: 8 };
          const r = await crawlSite(site, path.join(work, `${pi}-${site.name}`), settings);
          score(`${site.name}${site.hasTrap ? '' : ' (no trap)'}`, site, r.urls, r.traps, t);
        } finally {
          await site.close();
        }
      }
      if (pi === 0) {
        if (nginxAvailable() && fs.existsSync(DOCS)) {
          const nginx = await startNginx(fs.realpathSync(DOCS));
          try {
            const r = await crawlSite(nginx, path.join(work, 'python-docs'), { concurrency: 8, perHost: 8 });
            score('Python docs on nginx (no trap)', { hasTrap: false, isTrap: () => false }, r.urls, r.traps, t);
          } finally {
            await nginx.close();
          }
        } else {
          console.log('\n  Python docs skipped: needs Debian packages nginx and python3-doc (apt-get install nginx python3-doc)');
        }
      }
      Object.assign(out, Object.fromEntries(Object.entries(report(`pass ${pi + 1} (${label})`, t)).map(([k, v]) => [`pass${pi + 1}${k[0]!.toUpperCase()}${k.slice(1)}`, v])));
    }
    return out;
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const r = await runTrapBench();
  if (r.pass1WarningPrecision < 1 || r.pass1SiteRecall < 1) process.exitCode = 1;
}
