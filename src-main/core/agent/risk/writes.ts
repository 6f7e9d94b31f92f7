/** The write rules of the risk classifier (classifier.ts lists them all): where a command writes, judged by locate (paths.ts). */
import { firstReason, optionValues, positionals } from './arguments'
import { isExistingFile, locate, type GlobRule, type Scope } from './paths'
import type { Redirect } from './shell-words'
import { sliceWord, type Word } from './words'

type Reason = string | null

/** Commands that write to paths given as arguments: judged by where those paths are. */
export function classifyWriter(name: string, args: Word[], scope: Scope): Reason {
  const text = args.map((word) => word.text)
  switch (name) {
    case 'touch':
    case 'mkdir':
      return firstReason(positionals(args, new Set(['-m', '-d', '-t', '-r', '--mode', '--date', '--reference'])), (word) =>
        writeOutside(word, scope, name, 'last-component'),
      )
    case 'tee':
      return firstReason(positionals(args, new Set()), (word) => writeOutside(word, scope, name))
    case 'cp':
    case 'install':
    case 'ln': {
      const valued = new Set(['-t', '-S', '-m', '-o', '-g', '--target-directory', '--suffix', '--mode', '--owner', '--group'])
      const targetFlag = text.findIndex((arg) => arg === '-t' || arg === '--target-directory')
      const attached = args.find((word) => word.text.startsWith('--target-directory='))
      const files = positionals(args, valued)
      if (name === 'install' && text.some((arg) => arg === '-d' || arg === '--directory')) {
        return firstReason(files, (word) => writeOutside(word, scope, name))
      }
      const target =
        targetFlag >= 0
          ? args[targetFlag + 1]
          : attached
            ? sliceWord(attached, '--target-directory='.length)
            : files.length >= 2
              ? files.at(-1)
              : undefined
      if (!target) return null
      const outside = writeOutside(target, scope, name)
      if (outside) return outside
      const noClobber = text.some((arg) => ['-n', '--no-clobber', '--update=none', '--update=none-fail'].includes(arg))
      const mayOverwrite = name === 'ln' ? text.some((arg) => arg === '--force' || /^-[a-zA-Z]*f/.test(arg)) : !noClobber
      if (mayOverwrite && targetFlag < 0 && !attached && isExistingFile(target, scope)) return `overwrites an existing file (${name})`
      return null
    }
    case 'rsync':
    case 'scp': {
      if (name === 'rsync' && text.some((arg) => arg.startsWith('--delete') || arg === '--remove-source-files'))
        return 'deletes files (rsync --delete)'
      const files = positionals(
        args,
        new Set([
          '-e',
          '-i',
          '-P',
          '-o',
          '-F',
          '-J',
          '-l',
          '--rsh',
          '--exclude',
          '--include',
          '--filter',
          '--exclude-from',
          '--include-from',
          '--files-from',
        ]),
      )
      const target = files.length >= 2 ? files.at(-1)! : undefined
      if (!target) return null
      if (/^[^/]*:/.test(target.text)) return `writes outside the project (${name} to another machine)`
      return writeOutside(target, scope, name)
    }
    case 'sed':
    case 'perl':
      if (!text.some((arg) => arg.startsWith('--in-place') || /^-[a-zA-Z]*i/.test(arg))) return null
      return firstReason(positionals(args, new Set(['-e', '-f', '-l', '--expression', '--file'])), (word) =>
        writeOutside(word, scope, `${name} -i`, 'last-component'),
      )
    case 'curl':
    case 'wget': {
      const valued =
        name === 'curl'
          ? ['-o', '--output', '--output-dir']
          : ['-O', '--output-document', '-P', '--directory-prefix', '-o', '--output-file', '-a', '--append-output']
      return firstReason(optionValues(args, valued), (word) => (word.text === '-' ? null : writeOutside(word, scope, name)))
    }
    case 'tar': {
      const mode = text.find((arg) => !arg.startsWith('--')) ?? ''
      const extracting = text.some((arg) => arg === '--extract' || arg === '--get') || /^-?[a-zA-Z]*x/.test(mode)
      if (extracting) return firstReason(optionValues(args, ['-C', '--directory']), (word) => writeOutside(word, scope, 'tar -C'))
      const creating = text.some((arg) => ['--create', '--append', '--update'].includes(arg)) || /^-?[a-zA-Z]*[cru]/.test(mode)
      if (!creating) return null
      // The archive: -f FILE, --file=FILE, or the word after a bundled `cf`/`-czf`.
      const bundled = /^-?[a-zA-Z]*f$/.test(mode) ? args[text.indexOf(mode) + 1] : undefined
      return firstReason([...optionValues(args, ['-f', '--file']), ...(bundled ? [bundled] : [])], (word) =>
        word.text === '-' ? null : writeOutside(word, scope, 'tar -f'),
      )
    }
    case 'unzip':
      return firstReason(optionValues(args, ['-d']), (word) => writeOutside(word, scope, 'unzip -d'))
    default:
      return null
  }
}

export function classifyRedirect(redirect: Redirect, scope: Scope): Reason {
  const writes =
    ['>', '>>', '>|', '&>', '&>>', '<>'].includes(redirect.op) ||
    (redirect.op === '>&' && !!redirect.target && !/^(\d+|-)$/.test(redirect.target.text))
  if (!writes || !redirect.target) return null
  return writeOutside(redirect.target, scope, redirect.op)
}

/** Why writing to `word` is risky (see locate), or null. `gitFolder`: .git is a place like the rest of the project. */
export function writeOutside(word: Word, scope: Scope, via: string, globs: GlobRule = 'refuse', gitFolder = false): Reason {
  const { place, why } = locate(word, scope, globs)
  // `$(…)` and backticks read `…` in text: show them as written.
  const shown = word.text.includes('…') ? word.source : word.text
  switch (place) {
    case 'device':
      return `writes to a device (${via} ${word.text})`
    case 'outside':
      return `writes outside the project (${via} ${word.text})`
    case 'git':
      return gitFolder ? null : `writes into .git, where git keeps hooks and config that run commands (${via} ${word.text})`
    case 'unknown':
      return `writes to ${why ?? 'a path known only when the command runs'} (${via} ${shown})`
    default:
      return null
  }
}
