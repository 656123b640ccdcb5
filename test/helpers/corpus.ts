/**
 * Where the tests find their corpus of other people's WARC/ARC/WACZ files and vectors. The one
 * place that knows these paths. Everything redistributable lives in the repository under
 * test/fixtures/corpus (PROVENANCE.md there). The pywb (GPL-3.0) and ukwa (GPL-2.0) files cannot
 * enter this Apache-2.0 repository: they are read from `../shared/corpus` beside the checkout
 * when it is there, and the tests that need them skip, naming that folder, when it is not
 * (gpl-tests.ts). No vitest import here: bench/fuzz.ts loads the corpus outside the runner.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (this file lives in test/helpers/). */
export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The corpus kept in the repository. */
const repoCorpus = path.join(repoRoot, 'test', 'fixtures', 'corpus');

/**
 * The folder beside the checkout that may hold the GPL files (same layout as the repo corpus).
 * TROVE_GPL_CORPUS names another folder (a missing one shows what a plain clone does).
 */
export const gplCorpusDir = path.resolve(process.env.TROVE_GPL_CORPUS || path.join(repoRoot, '..', 'shared', 'corpus'));

/** Sub-folders of warc/ that stay outside the repository because of their licence. */
const GPL_SOURCES = ['pywb', 'ukwa'];

/** Whether the GPL files can be read in this checkout. */
export const hasGplCorpus = GPL_SOURCES.every((s) => fs.existsSync(path.join(gplCorpusDir, 'warc', s)));

/** Why a GPL-file test skipped; put in its title so the skip explains itself. */
export const gplSkipNote = `(skipped: needs the GPL corpus files in ${gplCorpusDir}, not found)`;

/** True for a corpus-relative path such as `warc/pywb/dupes.warc.gz`. */
export function isGplCorpusFile(rel: string): boolean {
  const parts = rel.split(/[\\/]/).filter(Boolean);
  return parts[0] === 'warc' && GPL_SOURCES.includes(parts[1]!);
}

/**
 * A path inside the corpus: `corpusPath('warc', 'warcio', 'example.warc')` or
 * `corpusPath('warc/warcio/example.warc')`. GPL files resolve to the folder beside the checkout.
 */
export function corpusPath(...parts: string[]): string {
  const rel = path.join(...(parts.length ? parts : ['.']));
  return path.resolve(isGplCorpusFile(rel) ? gplCorpusDir : repoCorpus, rel);
}

/** Drop GPL files from a list of corpus-relative paths when they are absent. */
export function withoutMissingGpl<T>(items: T[], rel: (item: T) => string = (x) => String(x)): T[] {
  return hasGplCorpus ? items : items.filter((x) => !isGplCorpusFile(rel(x)));
}

interface ExpectedEntry { file: string }

/**
 * warc/EXPECTED.json: the repository's entries, plus the GPL files' entries from the folder
 * beside the checkout when it is there.
 */
export function expectedEntries<T extends ExpectedEntry>(): T[] {
  const own = JSON.parse(fs.readFileSync(corpusPath('warc', 'EXPECTED.json'), 'utf8')) as T[];
  if (!hasGplCorpus) return own;
  const shared = JSON.parse(fs.readFileSync(path.join(gplCorpusDir, 'warc', 'EXPECTED.json'), 'utf8')) as T[];
  return [...own, ...shared.filter((e) => isGplCorpusFile(e.file))];
}

/** Every file under warc/ (corpus-relative, `/`-separated, EXPECTED.json left out), GPL ones when present. */
export function corpusWarcFiles(): string[] {
  const list = (dir: string, base: string): string[] =>
    fs.readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile() && e.name !== 'EXPECTED.json')
      .map((e) => path.relative(base, path.join(e.parentPath, e.name)).split(path.sep).join('/'));
  const own = list(path.join(repoCorpus, 'warc'), repoCorpus).filter((f) => !isGplCorpusFile(f));
  const gpl = hasGplCorpus
    ? GPL_SOURCES.flatMap((s) => list(path.join(gplCorpusDir, 'warc', s), gplCorpusDir))
    : [];
  return [...own, ...gpl].sort();
}
