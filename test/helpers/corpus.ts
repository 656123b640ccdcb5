import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (this file lives in test/helpers/). */
export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** A path inside the shared external corpus, which sits beside the repository as ../shared/corpus. */
export function corpusPath(...parts: string[]): string {
  return path.resolve(repoRoot, '..', 'shared', 'corpus', ...parts);
}
