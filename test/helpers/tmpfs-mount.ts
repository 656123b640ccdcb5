/**
 * A real full disk for tests: a small tmpfs mounted over a directory. Mounting needs root (CI runs
 * as root); elsewhere `canMountTmpfs` is false and the tests that need it skip with a message.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Mount a tmpfs of `size` (e.g. `2m`) on `dir`; false if this process may not. */
export function tryMountTmpfs(dir: string, size: string): boolean {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Whether tmpfs mounts work here, found once by mounting and unmounting one. */
export const canMountTmpfs: boolean = (() => {
  const probe = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-mount-probe-'));
  const ok = tryMountTmpfs(probe, '1m');
  if (ok) execFileSync('umount', [probe]);
  fs.rmSync(probe, { recursive: true, force: true });
  return ok;
})();
