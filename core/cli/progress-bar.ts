/**
 * The CLI's progress bars (crawl, export, import): cli-progress's single bar in its
 * shades_classic look, on stderr. The library loads when the first bar is made, not when the CLI
 * starts: bars are drawn only on a terminal, and a crawl run from a script or a service never
 * draws one (loading it costs ~0.3–4 MiB RSS, bench/touch-rss-probe.ts). require(), not import():
 * the bars are made in constructors, which cannot wait.
 */
import { createRequire } from 'node:module';
import type * as CliProgress from 'cli-progress';

export type ProgressBar = CliProgress.SingleBar;

export function newProgressBar(options: CliProgress.Options): ProgressBar {
  const cliProgress = createRequire(import.meta.url)('cli-progress') as typeof CliProgress;
  return new cliProgress.SingleBar(options, cliProgress.Presets.shades_classic);
}
