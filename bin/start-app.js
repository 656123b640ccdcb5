// `npm start`: opens the desktop app with `electron-vite preview`, after checking that the
// Electron binary is there. Electron 45's npm package downloads nothing at `npm ci` (it has no
// install script); the binary is fetched on the first `require('electron')`, and where the
// network does not allow it, electron-vite dies with a stack trace. Here the same download is
// tried once, and if it fails the user gets one line saying what is missing and how to get it.
// Plain JavaScript, so it runs before anything is built.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);
const electronDir = path.dirname(require.resolve('electron/package.json'));

/** Where electron's index.js would look for the binary, or null when it has not been fetched. */
function electronBinary() {
  const pathFile = path.join(electronDir, 'path.txt');
  if (!fs.existsSync(pathFile)) return null;
  const rel = fs.readFileSync(pathFile, 'utf8');
  const dist = process.env.ELECTRON_OVERRIDE_DIST_PATH || path.join(electronDir, 'dist');
  const full = path.join(dist, rel);
  return fs.existsSync(full) ? full : null;
}

if (!electronBinary()) {
  // The package's own downloader (what `npx install-electron` runs), quietly.
  const got = spawnSync(process.execPath, [path.join(electronDir, 'install.js')], { encoding: 'utf8' });
  if (got.status !== 0 || !electronBinary()) {
    const why = `${got.stderr || ''}${got.error?.message || ''}`.split('\n').find((l) => l.trim()) || 'download failed';
    process.stderr.write(
      `trove: the Electron binary is missing (${path.join(electronDir, 'dist')}) and could not be downloaded (${why.trim()}).` +
        ' Run `npx install-electron` where the network allows it, or set ELECTRON_OVERRIDE_DIST_PATH to an unpacked Electron 45;' +
        ' the `trove` command line needs no Electron.\n',
    );
    process.exit(1);
  }
}

const child = spawn('electron-vite', ['preview', ...process.argv.slice(2)], { stdio: 'inherit', shell: process.platform === 'win32' });
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig));
