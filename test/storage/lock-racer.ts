/**
 * A child process for the lock race test (owner-lock.test.ts): for each round it waits for the
 * round's start file, then tries to take the lock at once, like every other racer. It reports
 * `won` or `lost <owner pid>` in a result file; a winner holds the lock until the round's release
 * file appears.
 *
 *   node lock-racer.ts <dir> <racer id> <rounds>
 */
import fs from 'node:fs';
import path from 'node:path';
import { tryLock } from '../../core/storage/owner-lock.ts';

const [dir, id, roundsArg] = process.argv.slice(2) as [string, string, string];
const rounds = Number(roundsArg);
const tick = new Int32Array(new SharedArrayBuffer(4));

function waitFor(file: string): void {
  // Bounded: the parent creates the file within the test's own time limit.
  for (let i = 0; i < 600_000 && !fs.existsSync(file); i++) Atomics.wait(tick, 0, 0, 1);
}

for (let r = 0; r < rounds; r++) {
  waitFor(path.join(dir, `go-${r}`));
  const got = tryLock(path.join(dir, 'race.lock'));
  // Written aside and renamed, so the parent never reads half a result.
  const result = path.join(dir, `result-${r}-${id}`);
  fs.writeFileSync(`${result}.tmp`, got.ok ? `won ${process.pid}` : `lost ${got.owner.pid}`);
  fs.renameSync(`${result}.tmp`, result);
  if (got.ok) {
    waitFor(path.join(dir, `release-${r}`));
    got.release();
  }
}
