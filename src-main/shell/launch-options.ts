import { existsSync } from 'node:fs'
import { resolve } from 'node:path'

/** Command-line flags that take the next argument as their value (Node's preload flag). */
const flagsWithValue = new Set(['-r', '--require'])

/**
 * The project folder named on the command line: the first argument that is not a flag,
 * after the app path when Electron runs an unpackaged app (`electron out/main/index.js DIR`).
 * Chromium and Node flags (`--inspect=0`, `-r loader.js`, …) are skipped wherever they are.
 */
export function projectArgument(argv: readonly string[], options: { defaultApp: boolean; cwd: string }): string | undefined {
  const positional: string[] = []
  for (let index = 1; index < argv.length; index += 1) {
    const argument = argv[index]
    if (argument === undefined || argument === '') continue
    if (argument === '--') {
      positional.push(...argv.slice(index + 1))
      break
    }
    if (flagsWithValue.has(argument)) {
      index += 1
      continue
    }
    if (argument.startsWith('-')) continue
    positional.push(argument)
  }
  const project = positional[options.defaultApp ? 1 : 0]
  return project === undefined ? undefined : resolve(options.cwd, project)
}

/** The first candidate file that exists, for better-sqlite3's `nativeBinding` option. */
export function findExistingFile(
  candidates: readonly (string | undefined)[],
  exists: (path: string) => boolean = existsSync,
): string | undefined {
  return candidates.find((candidate): candidate is string => candidate !== undefined && exists(candidate))
}
