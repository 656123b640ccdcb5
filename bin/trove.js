#!/usr/bin/env node
// The `trove` CLI. Node ≥ 22.19 runs the TypeScript sources directly (type stripping).
import { main } from '../core/cli/main.ts';

await main(process.argv.slice(2));
