/**
 * An import changes the library all at once or not at all. Each file is indexed under a staged
 * registration (its path with STAGED_SUFFIX), beside any earlier import of the same path, which
 * stays whole meanwhile; when the run ends, one transaction drops the earlier registrations and
 * gives the staged ones their paths. A cancelled run drops its staged rows and the copies it made
 * in `warcs/`, so the library is as it was. A run that fails otherwise (the database stayed busy)
 * keeps the files it had finished, as it always has, and drops only the one it was in.
 * Staged rows a killed import left behind are dropped when the next import starts.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import { databaseOf } from './archive-dir.ts';
import type { Archive } from './archive-dir.ts';
import type { NewWarcFile } from './capture-index.ts';
import { STAGED_SUFFIX } from './staged-path.ts';


interface Staged {
  id: number;
  path: string;
  name: string;
  /** The registration this one replaces, dropped at commit. */
  replaces: number | null;
  /** True once the file's indexing finished. */
  complete: boolean;
}

export class ImportStaging {
  readonly #archive: Archive;
  readonly #staged: Staged[] = [];
  /** Files this run wrote into the archive that were not there before (copies, recompressed copies). */
  readonly #written: string[] = [];

  constructor(archive: Archive) {
    this.#archive = archive;
    for (const f of archive.index.files()) if (f.path.endsWith(STAGED_SUFFIX)) archive.index.deleteFile(f.id);
  }

  /** Register `f` staged; returns its id. A file staged earlier in this run for the same path is replaced. */
  register(f: NewWarcFile): number {
    const index = this.#archive.index;
    const again = this.#staged.findIndex((s) => s.path === f.path);
    if (again >= 0) index.deleteFile(this.#staged.splice(again, 1)[0]!.id);
    const id = index.addFile({ ...f, path: f.path + STAGED_SUFFIX });
    this.#staged.push({ id, path: f.path, name: f.name, replaces: index.fileByPath(f.path)?.id ?? null, complete: false });
    return id;
  }

  /** The staged file with this id is indexed whole. */
  complete(id: number): void {
    const s = this.#staged.find((x) => x.id === id);
    if (s) s.complete = true;
  }

  /** Note a file about to be written into the archive, if it is not there yet (removed on cancel). */
  writing(file: string): void {
    if (!fs.existsSync(file)) this.#written.push(file);
  }

  /** The run ended: staged files that were finished take their places; any other is dropped. */
  commit(): void {
    const index = this.#archive.index;
    databaseOf(this.#archive)
      .transaction(() => {
        for (const s of this.#staged) {
          if (!s.complete) {
            index.deleteFile(s.id);
            continue;
          }
          if (s.replaces !== null) index.deleteFile(s.replaces);
          index.renameFile(s.id, s.path, s.name);
        }
      })
      .immediate();
    this.#staged.length = 0;
  }

  /** The run was cancelled: drop every staged file and remove what this run wrote. */
  async discard(): Promise<void> {
    const index = this.#archive.index;
    databaseOf(this.#archive)
      .transaction(() => {
        for (const s of this.#staged) index.deleteFile(s.id);
      })
      .immediate();
    this.#staged.length = 0;
    for (const file of this.#written.splice(0)) await fsp.rm(file, { force: true });
  }
}
