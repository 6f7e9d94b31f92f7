#!/usr/bin/env node
// The `arbor` command: runs the built CLI (npm run build makes out/main/cli.js).
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const cli = fileURLToPath(new URL('../out/main/cli.js', import.meta.url))
if (!existsSync(cli)) {
  console.error('arbor: the CLI is not built yet; run `npm run build` in the Arbor folder first.')
  process.exit(2)
}
await import(cli)
