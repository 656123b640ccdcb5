/**
 * `trove robots test --robots-file <f> --agent <a> <url...>`: what would Trove's robots.txt
 * matcher decide? One line per URL, then the agent's crawl-delay and the file's sitemaps:
 *
 *   disallowed http://example.com/private Disallow: /private (line 4, group *)
 *   allowed http://example.com/ (no matching rule)
 *   crawl-delay: none
 *   sitemap: http://example.com/sitemap.xml
 *
 * Exit 0 whatever the verdicts; 2 when the robots file cannot be read or the agent is unusable.
 */
import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { DEFAULT_USER_AGENT } from '../api/settings.ts';
import { isTroveError } from '../errors.ts';
import { agentToken } from '../robots/agent-token.ts';
import { parseRobots, ROBOTS_MAX_BYTES, type RobotsMatch } from '../robots/parse-robots.ts';
import { exitCodeFor } from '../api/error-codes.ts';
import { formatCliError } from './cli-errors.ts';

/** Where the command writes; tests pass their own, the CLI uses the process streams. */
export interface CommandIo {
  stdout: { write(chunk: string): unknown };
  stderr: { write(chunk: string): unknown };
}

interface TestOptions {
  robotsFile: string;
  agent: string;
}

export function registerRobotsCommand(program: Command, io: CommandIo = { stdout: process.stdout, stderr: process.stderr }): void {
  const robots = program.command('robots').description('robots.txt tools');
  robots
    .command('test')
    .description('Check URLs against a robots.txt file as Trove would (RFC 9309)')
    .requiredOption('--robots-file <file>', 'robots.txt file to test against')
    .option('--agent <agent>', 'agent product token or full User-Agent string', agentToken(DEFAULT_USER_AGENT))
    .argument('<url...>', 'URLs to check (percent-encoded, as a crawler would request them)')
    .action(async (urls: string[], opts: TestOptions) => {
      await runRobotsTest(urls, opts, io);
    });
}

async function runRobotsTest(urls: string[], opts: TestOptions, io: CommandIo): Promise<void> {
  let body: Buffer;
  try {
    body = await readFile(opts.robotsFile);
  } catch (err) {
    const why = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    io.stderr.write(formatCliError('robots test', `cannot read robots file ${opts.robotsFile} (${why})`, 'SETTINGS_INVALID'));
    process.exitCode = exitCodeFor('SETTINGS_INVALID');
    return;
  }
  let agent: string;
  try {
    agent = agentToken(opts.agent);
  } catch (err) {
    if (!isTroveError(err)) throw err;
    io.stderr.write(formatCliError('robots test', err.message, err.code));
    process.exitCode = exitCodeFor(err.code);
    return;
  }

  const robots = parseRobots(body);
  if (robots.truncated) {
    io.stderr.write(`trove robots test: note: ${opts.robotsFile} is over ${ROBOTS_MAX_BYTES / 1024} KiB; only the first ${ROBOTS_MAX_BYTES / 1024} KiB were read\n`);
  }
  const lines: string[] = [];
  for (const url of urls) {
    const m = robots.match(agent, url);
    lines.push(`${m.allowed ? 'allowed' : 'disallowed'} ${url} ${ruleText(m)}`);
  }
  const delay = robots.crawlDelay(agent);
  lines.push(`crawl-delay: ${delay === null ? 'none' : delay}`);
  for (const sitemap of robots.sitemaps) lines.push(`sitemap: ${sitemap}`);
  io.stdout.write(`${lines.join('\n')}\n`);
}

function ruleText(m: RobotsMatch): string {
  if (m.rule === null) return '(no matching rule)';
  const directive = m.rule.directive === 'allow' ? 'Allow' : 'Disallow';
  return `${directive}: ${m.rule.pattern} (line ${m.rule.line}, group ${m.group})`;
}
