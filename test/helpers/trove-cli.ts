/**
 * Run the real `trove` CLI (bin/trove.js) in a child process, asynchronously: the fixture
 * servers of the test run in the test's own process and must go on answering meanwhile.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { repoRoot } from './corpus.ts';

export const troveBin = path.join(repoRoot, 'bin', 'trove.js');

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runTrove(args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [troveBin, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}
