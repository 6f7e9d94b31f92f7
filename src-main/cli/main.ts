import { readFileSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { printable } from './printable'
import { options } from './cli-values'
import { usage } from './usage'
import { JobRefused, UsageError } from './usage-error'

/**
 * The `arbor` command. Each command's module is imported only when that command runs: --help,
 * --version and a mistyped command line load none of them (bench/cli.ts times these against a
 * bare `node`), so nothing here may import a command's code, or zod, statically.
 */
async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv
  if (!command || command === '--help' || command === '-h' || command === 'help') {
    console.log(usage)
    return command ? 0 : 2
  }
  if (command === '--version' || command === '-v') {
    console.log(`arbor ${version()}`)
    return 0
  }
  const { values, positionals } = parseArgs({ args: rest, options, allowPositionals: true, strict: true })
  if (values.help) {
    console.log(usage)
    return 0
  }
  if (positionals.length > 1) throw new UsageError(`too many arguments: ${positionals.join(' ')}`)
  const dir = positionals[0] ?? process.cwd()
  switch (command) {
    case 'import':
      return (await import('./commands/import')).runImport(positionals[0], values)
    case 'open':
      return (await import('./commands/import')).runOpen(positionals[0], values)
    case 'demo':
      return (await import('./commands/run')).runDemo(dir, values)
    case 'run':
      return (await import('./commands/run')).runJob(dir, values)
    case 'resume':
      if (positionals.length > 0) throw new UsageError(`resume takes no folder: the job knows its own (${positionals[0]})`)
      return (await import('./commands/resume')).runResume(values)
    case 'export':
      return (await import('./commands/export')).runExport(values)
    case 'changes':
      return (await import('./commands/changes')).runChanges(positionals[0], values)
    case 'merge':
      return (await import('./commands/branches')).runMerge(positionals[0], values)
    case 'discard':
      return (await import('./commands/branches')).runDiscard(positionals[0], values)
    case 'serve':
      return (await import('./commands/serve')).runServe(positionals[0], values)
    default:
      throw new UsageError(`unknown command "${command}"`)
  }
}

/** Arbor's version, from package.json two levels up (this file runs as out/main/cli.js or src-main/cli/main.ts). */
function version(): string {
  return (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code
  },
  (error: unknown) => {
    if (JobRefused.isInstance(error)) {
      console.error(`arbor: ${printable(error.message)}`)
      process.exitCode = 2
      return
    }
    if (
      UsageError.isInstance(error) ||
      (error instanceof TypeError && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS'))
    ) {
      console.error(`arbor: ${printable(error.message)}\n\n${usage}`)
      process.exitCode = 2
      return
    }
    // Messages may quote a file or a model (an import error, a refused job): no terminal escapes.
    console.error(`arbor: ${printable(error instanceof Error ? error.message : String(error))}`)
    process.exitCode = 1
  },
)
