// Stops `trove` with one plain line when the Node running it is too old to run the TypeScript
// sources (type stripping): otherwise the user gets ERR_UNKNOWN_FILE_EXTENSION and a stack trace.
// The minimum is read from package.json's `engines.node`, its one home. Plain JavaScript that old
// Node versions parse, and imported before anything else in bin/trove.js, so it runs first.
import fs from 'node:fs';

const pkg = JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const wanted = /(\d+)\.(\d+)/.exec(pkg.engines.node);
const need = [Number(wanted[1]), Number(wanted[2])];
const have = process.versions.node.split('.').map(Number);

if (have[0] < need[0] || (have[0] === need[0] && have[1] < need[1])) {
  process.stderr.write(
    `trove: needs Node.js ${need[0]}.${need[1]} or newer, and this is Node.js ${process.versions.node}` +
      ` (${process.execPath}). In the Trove folder, \`npm ci\` installs Node 24 into node_modules` +
      ` and \`npx trove\` uses it; or install Node 24 LTS from https://nodejs.org/.\n`,
  );
  process.exit(1);
}
