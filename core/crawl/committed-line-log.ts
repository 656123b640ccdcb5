/**
 * crawl.log and scope.log under group commit: a URI's line is said once its outcome is durable.
 * While a group is open (core/storage/group-commit.ts) lines are held and appended together
 * right after its COMMIT, in one write; a lost group's lines are dropped, since its URIs go back
 * to the queue and log again when they are fetched again. So the log keeps one line per URI
 * across a `kill -9` or a rolled-back group, as it did when every URI committed on its own.
 * Outside a group (paused on a full disk, closing) a line is appended at once, as LineLog does.
 */
import { LineLog } from './crawl-log.ts';
import type { GroupCommit } from '../storage/group-commit.ts';

export class CommittedLineLog extends LineLog {
  readonly #group: GroupCommit;
  #held: string[] = [];

  constructor(path: string, group: GroupCommit) {
    super(path);
    this.#group = group;
    group.listen({ afterCommit: () => this.#release(), lost: () => (this.#held = []) });
  }

  override write(line: string): void {
    if (this.#group.state === 'open') this.#held.push(line);
    else super.write(line);
  }

  override close(): Promise<void> {
    this.#release();
    return super.close();
  }

  #release(): void {
    if (this.#held.length === 0) return;
    const lines = this.#held.join('\n');
    this.#held = [];
    super.write(lines);
  }
}
