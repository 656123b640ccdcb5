/**
 * Browser profiles in the library (issue 36): a profile is a named, saved login — the cookies
 * and script storage a crawl starts from — kept in the library, never in a crawl directory, so
 * no WARC, WACZ or export ever reads it. One directory per profile under `<library>/.profiles/`
 * (a dot-folder: the library's list of crawls passes it by):
 *
 *   <name>/profile.json   name, login URL, times
 *   <name>/state.json     cookies, localStorage and sessionStorage per origin (ProfileState)
 *   <name>/chromium/      the Chromium user-data-dir the login was made in (IndexedDB,
 *                         service workers and everything else Chromium keeps), when there is one
 *
 * Readable by the owner only: directories 0700, files 0600, set explicitly (whatever the umask)
 * and written through a temporary file and a rename, so a crash never leaves half a profile.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PROFILE_NAME, type ProfileInfo, type ProfileState } from '../api/profile-types.ts';
import { TroveError } from '../errors.ts';

const META = 'profile.json';
const STATE = 'state.json';
export const PROFILE_BROWSER_DIR = 'chromium';

interface ProfileMeta {
  name: string;
  url: string | null;
  createdAt: number;
  updatedAt: number;
}

/** The library folder the CLI uses: TROVE_LIBRARY, else ~/Documents/Trove (the app's default too). */
export function defaultLibraryDir(): string {
  return process.env.TROVE_LIBRARY || path.join(os.homedir(), 'Documents', 'Trove');
}

/** Where a library keeps its profiles. */
export function profilesDirOf(libraryDir: string): string {
  return path.join(libraryDir, '.profiles');
}

export class ProfileStore {
  readonly dir: string;

  constructor(dir: string) {
    this.dir = path.resolve(dir);
  }

  /** The directory of a profile name; throws PROFILE_BAD_NAME for anything that is not a plain name. */
  pathOf(name: string): string {
    if (typeof name !== 'string' || !PROFILE_NAME.test(name)) {
      throw new TroveError('PROFILE_BAD_NAME', `not a profile name: ${JSON.stringify(name)} (letters, digits, . _ -; at most 64)`);
    }
    return path.join(this.dir, name);
  }

  exists(name: string): boolean {
    return fs.existsSync(path.join(this.pathOf(name), META));
  }

  /** The directory of an existing profile; PROFILE_NOT_FOUND otherwise. */
  require(name: string): string {
    const dir = this.pathOf(name);
    if (!fs.existsSync(path.join(dir, META))) {
      const known = this.list().map((p) => p.name);
      throw new TroveError('PROFILE_NOT_FOUND', `no profile named ${name} in ${this.dir}${known.length ? ` (there are: ${known.join(', ')})` : ' (there are none: trove profile create)'}`);
    }
    return dir;
  }

  /** The Chromium user-data-dir of a profile (made, 0700, when asked for). */
  browserDir(name: string): string {
    const dir = path.join(this.pathOf(name), PROFILE_BROWSER_DIR);
    privateDir(this.dir);
    privateDir(this.pathOf(name));
    privateDir(dir);
    return dir;
  }

  /** Save a profile's state (a new profile, or a refresh of one). */
  save(name: string, state: ProfileState, opts: { url?: string | null; now?: number } = {}): void {
    const dir = this.pathOf(name);
    const now = opts.now ?? Date.now();
    const old = this.exists(name) ? this.meta(name) : null;
    privateDir(this.dir);
    privateDir(dir);
    const meta: ProfileMeta = { name, url: opts.url !== undefined ? opts.url : (old?.url ?? null), createdAt: old?.createdAt ?? now, updatedAt: now };
    privateFile(path.join(dir, STATE), JSON.stringify(state, null, 1));
    privateFile(path.join(dir, META), JSON.stringify(meta, null, 1));
  }

  /** A profile's cookies and storage. */
  state(name: string): ProfileState {
    const file = path.join(this.require(name), STATE);
    try {
      const s = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<ProfileState>;
      return { cookies: Array.isArray(s.cookies) ? s.cookies : [], origins: Array.isArray(s.origins) ? s.origins : [] };
    } catch (e) {
      throw new TroveError('PROFILE_IO_FAILED', `cannot read ${file}: ${(e as Error).message}`, {}, { cause: e });
    }
  }

  list(): ProfileInfo[] {
    let names: string[];
    try {
      names = fs.readdirSync(this.dir);
    } catch {
      return [];
    }
    const out: ProfileInfo[] = [];
    for (const n of names.sort()) {
      if (!PROFILE_NAME.test(n) || !fs.existsSync(path.join(this.dir, n, META))) continue;
      const meta = this.meta(n);
      const state = this.state(n);
      const sites = [...new Set(state.cookies.map((c) => c.domain.replace(/^\./, '')))].sort();
      out.push({ name: n, url: meta.url, createdAt: meta.createdAt, updatedAt: meta.updatedAt, cookies: state.cookies.length, sites, browserData: fs.existsSync(path.join(this.dir, n, PROFILE_BROWSER_DIR)) });
    }
    return out;
  }

  rename(from: string, to: string): void {
    const src = this.require(from);
    const dst = this.pathOf(to);
    if (fs.existsSync(dst)) throw new TroveError('PROFILE_EXISTS', `a profile named ${to} is already there`);
    fs.renameSync(src, dst);
    const meta = this.meta(to);
    privateFile(path.join(dst, META), JSON.stringify({ ...meta, name: to }, null, 1));
  }

  delete(name: string): void {
    fs.rmSync(this.require(name), { recursive: true, force: true });
  }

  private meta(name: string): ProfileMeta {
    const file = path.join(this.pathOf(name), META);
    try {
      return JSON.parse(fs.readFileSync(file, 'utf8')) as ProfileMeta;
    } catch (e) {
      throw new TroveError('PROFILE_IO_FAILED', `cannot read ${file}: ${(e as Error).message}`, {}, { cause: e });
    }
  }
}

function privateDir(dir: string): void {
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    fs.chmodSync(dir, 0o700);
  } catch (e) {
    throw new TroveError('PROFILE_IO_FAILED', `cannot make ${dir}: ${(e as Error).message}`, {}, { cause: e });
  }
}

function privateFile(file: string, text: string): void {
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    fs.writeFileSync(tmp, text, { mode: 0o600 });
    fs.chmodSync(tmp, 0o600);
    fs.renameSync(tmp, file);
  } catch (e) {
    fs.rmSync(tmp, { force: true });
    throw new TroveError('PROFILE_IO_FAILED', `cannot write ${file}: ${(e as Error).message}`, {}, { cause: e });
  }
}
