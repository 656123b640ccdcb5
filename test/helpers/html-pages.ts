/**
 * HTML pages that extraction tests read whole: the repository's fixtures and Debian's Python docs
 * (package python3-doc), which nobody here wrote. Tests of the docs skip, saying why, where the
 * package is not installed.
 */
import fs from 'node:fs';
import path from 'node:path';

export const PYTHON_DOCS = '/usr/share/doc/python3/html';

/** Every .html / .htm file under `dir`, sorted. */
export function htmlFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (/\.html?$/.test(e.name)) out.push(p);
    }
  };
  walk(dir);
  return out.sort();
}

/** The Python docs' pages, or the test skipped with a message when they are not installed. */
export function pythonDocsPages(ctx: { skip: () => void }): string[] {
  if (!fs.existsSync(PYTHON_DOCS)) {
    console.log(`skipped: ${PYTHON_DOCS} is missing (apt-get install python3-doc)`);
    ctx.skip();
    return [];
  }
  return htmlFiles(PYTHON_DOCS);
}
