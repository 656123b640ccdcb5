/**
 * `trove profile create|list|rename|delete`: the library's browser profiles (issue 36), the
 * saved logins `trove crawl --profile NAME` starts from.
 *
 *   trove profile create members --url https://example.org/login   (log in, close the window)
 *     (stderr shows what the browser holds each time that changes, cookie and storage key names
 *     without their values: once the login's cookie is there, the window can be closed)
 *   trove profile create members --url https://example.org/login --update   (log in again: refresh)
 *   trove profile list
 *   trove profile rename members old-members
 *   trove profile delete old-members
 *
 * The library is TROVE_LIBRARY or ~/Documents/Trove (the app's default), or `--library DIR`;
 * profiles live in its `.profiles` folder, readable by the owner only (storage/profile-store.ts).
 */
import type { Command } from 'commander';
import fs from 'node:fs';
import path from 'node:path';
import type { ProfileState } from '../api/profile-types.ts';
import { TroveError } from '../errors.ts';
import { defaultLibraryDir, ProfileStore, profilesDirOf } from '../storage/profile-store.ts';
import type { CommandIo } from './robots-command.ts';

interface LibraryOpts {
  library?: string;
}

function storeOf(opts: LibraryOpts): ProfileStore {
  return new ProfileStore(profilesDirOf(opts.library ?? defaultLibraryDir()));
}

export function registerProfileCommand(program: Command, io: CommandIo): void {
  const profile = program.command('profile').description('browser profiles: saved logins a crawl starts from (--profile NAME)');
  const lib = (c: Command) => c.option('--library <dir>', 'the library folder (default $TROVE_LIBRARY, else ~/Documents/Trove)');

  lib(profile.command('create').description('open a visible Chromium at the login page; log in, close the window: the profile is saved'))
    .argument('<name>', 'the profile name (letters, digits, . _ -)')
    .requiredOption('--url <url>', 'the login page to open')
    .option('--update', 'open an existing profile again (log in anew) and save it over the old state')
    .option('--browser-path <path>', 'the Chromium or Chrome executable (else $TROVE_CHROMIUM, then the usual install paths)')
    .action(async (name: string, opts: LibraryOpts & { url: string; update?: boolean; browserPath?: string }) => {
      const store = storeOf(opts);
      store.pathOf(name);
      if (store.exists(name) && !opts.update) throw new TroveError('PROFILE_EXISTS', `a profile named ${name} is already there (--update logs in to it again)`);
      if (!store.exists(name) && opts.update) store.require(name);
      if (!URL.canParse(opts.url)) throw new TroveError('URL_INVALID', `--url is not a URL: ${opts.url}`);
      const [{ captureProfile, hasDisplay, NO_DISPLAY_MESSAGE }, { findChromium }] = await Promise.all([import('../browser/profile-capture.ts'), import('../browser/find-chromium.ts')]);
      if (!hasDisplay()) throw new TroveError('PROFILE_NO_DISPLAY', NO_DISPLAY_MESSAGE);
      const executablePath = findChromium({ path: opts.browserPath });
      const userDataDir = store.browserDir(name);
      const port = Number(process.env.TROVE_PROFILE_CDP_PORT) || undefined;
      let shown = '';
      const state = await captureProfile({
        executablePath,
        userDataDir,
        url: opts.url,
        cdpPort: port,
        onOpen: () => io.stderr.write(`A browser window is open at ${opts.url}: log in, then close the window to save profile ${name}.\n`),
        onRead: (read) => {
          const line = heldLine(read);
          if (line !== shown) io.stderr.write(`${(shown = line)}\n`);
        },
      });
      store.save(name, state, { url: opts.url });
      lockDown(userDataDir);
      io.stdout.write(`saved profile ${name}: ${state.cookies.length} cookies, storage of ${state.origins.length} origin${state.origins.length === 1 ? '' : 's'} (${store.pathOf(name)})\n`);
    });

  lib(profile.command('list').description('the profiles of the library: name, cookies, sites, last saved'))
    .option('--json', 'as JSON (never the cookies themselves)')
    .action((opts: LibraryOpts & { json?: boolean }) => {
      const list = storeOf(opts).list();
      if (opts.json) {
        io.stdout.write(`${JSON.stringify(list, null, 2)}\n`);
        return;
      }
      if (list.length === 0) io.stdout.write('no profiles (trove profile create NAME --url LOGIN_URL)\n');
      for (const p of list) {
        io.stdout.write(`${p.name}\t${p.cookies} cookies\t${p.sites.join(', ') || '-'}\tsaved ${new Date(p.updatedAt).toISOString()}${p.browserData ? '\tbrowser data' : ''}${p.url ? `\t${p.url}` : ''}\n`);
      }
    });

  lib(profile.command('rename').description('rename a profile'))
    .argument('<name>')
    .argument('<new-name>')
    .action((name: string, to: string, opts: LibraryOpts) => {
      storeOf(opts).rename(name, to);
      io.stdout.write(`renamed profile ${name} to ${to}\n`);
    });

  lib(profile.command('delete').description('delete a profile and its browser data'))
    .argument('<name>')
    .action((name: string, opts: LibraryOpts) => {
      storeOf(opts).delete(name);
      io.stdout.write(`deleted profile ${name}\n`);
    });
}

/** What a reading holds, by name only (never a value): `read: 3 cookies (pre, sid), 1 storage key (theme)`. */
function heldLine(state: ProfileState): string {
  const count = (n: number, one: string, names: string[]) => {
    const unique = [...new Set(names)].sort();
    const shown = unique.length > 12 ? [...unique.slice(0, 12), `${unique.length - 12} more`] : unique;
    return `${n} ${one}${n === 1 ? '' : 's'}${n ? ` (${shown.join(', ')})` : ''}`;
  };
  const keys = state.origins.flatMap((o) => [...o.localStorage, ...o.sessionStorage].map(([k]) => k));
  return `read: ${count(state.cookies.length, 'cookie', state.cookies.map((c) => c.name))}, ${count(keys.length, 'storage key', keys)}`;
}

/** Chromium writes its files with its own modes: the profile's browser data is made owner-only too. */
function lockDown(dir: string): void {
  for (const e of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    const p = path.join(e.parentPath, e.name);
    try {
      if (e.isDirectory()) fs.chmodSync(p, 0o700);
      else if (e.isFile()) fs.chmodSync(p, 0o600);
    } catch {
      /* a file Chromium removed meanwhile */
    }
  }
  fs.chmodSync(dir, 0o700);
}
