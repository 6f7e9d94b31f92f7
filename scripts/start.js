#!/usr/bin/env node
// `npm start [-- PROJECT]`: fetches the Electron binary and builds better-sqlite3 for Electron
// when they are missing, builds the app and launches it. The steps are in ./start-steps.js.
// ARBOR_START_DRY_RUN=1 checks and prints what it would run, and runs nothing.
import path from 'node:path'
import { runStart } from './start-steps.js'

const root = path.resolve(import.meta.dirname, '..')
process.exitCode = await runStart({
  root,
  argv: process.argv.slice(2),
  cwd: process.env.INIT_CWD ?? process.cwd(),
  env: process.env,
  dryRun: process.env.ARBOR_START_DRY_RUN === '1',
})
