/**
 * Records written to a WARC whose index rows are not yet in the open group. A URI writes its
 * record group (write-records) and adds its rows a few steps later (complete-uri), and meanwhile
 * another URI's write may rotate the file. Rows must be committed before their file is closed:
 * after a crash or a lost group only `.open` files are reconciled with the index
 * (reconcile-index.ts), so rows that committed after the close (with group commit, up to a whole
 * group later) and were then lost would leave records that nothing ever indexes. The WARC
 * writer's closing hook waits here until each such URI has added its rows (or given them up), and
 * then commits the group.
 */
export class RowsInFlight {
  readonly #byFile = new Map<string, number>();
  readonly #waiters = new Map<string, (() => void)[]>();

  /** A URI wrote records to `file`; its rows follow. */
  add(file: string): void {
    this.#byFile.set(file, (this.#byFile.get(file) ?? 0) + 1);
  }

  /** That URI's rows are in the open group (or will never come: an error dropped them). */
  done(file: string): void {
    const left = (this.#byFile.get(file) ?? 1) - 1;
    if (left > 0) {
      this.#byFile.set(file, left);
      return;
    }
    this.#byFile.delete(file);
    const waiting = this.#waiters.get(file);
    this.#waiters.delete(file);
    for (const w of waiting ?? []) w();
  }

  pending(file: string): number {
    return this.#byFile.get(file) ?? 0;
  }

  /**
   * Resolves once no URI holds rows for `file`. It first lets the event loop turn once: a write
   * (the browser capture's) whose rows follow right after it, in the same turn, gets them in too.
   */
  async settled(file: string): Promise<void> {
    await new Promise<void>((resolve) => setImmediate(resolve));
    while (this.pending(file) > 0) {
      await new Promise<void>((resolve) => {
        const list = this.#waiters.get(file) ?? [];
        list.push(resolve);
        this.#waiters.set(file, list);
      });
    }
  }
}
