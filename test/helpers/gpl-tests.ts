/**
 * `it` and `describe` for tests that read the GPL corpus files (pywb, ukwa), which live outside
 * the repository (corpus.ts says where): they skip when the files are absent, and the skipped
 * test's title says which folder was missing, so a skip is never silent.
 */
import { describe, it } from 'vitest';
import { gplSkipNote, hasGplCorpus, isGplCorpusFile } from './corpus.ts';

type Register = (title: string, ...rest: unknown[]) => void;

/** True when one of these corpus-relative files is a GPL file that is not here. */
const missing = (files: string[]) => !hasGplCorpus && files.some(isGplCorpusFile);

/** `it` for a test reading these corpus files (e.g. `itUsing('warc/pywb/dupes.warc.gz')(title, fn)`). */
export function itUsing(...files: string[]): Register {
  const skip = missing(files);
  return (title, ...rest) => (it.skipIf(skip) as Register)(skip ? `${title} ${gplSkipNote}` : title, ...rest);
}

/** `describe` for a group of tests reading these corpus files. */
export function describeUsing(...files: string[]): Register {
  const skip = missing(files);
  return (title, ...rest) => (describe.skipIf(skip) as Register)(skip ? `${title} ${gplSkipNote}` : title, ...rest);
}
