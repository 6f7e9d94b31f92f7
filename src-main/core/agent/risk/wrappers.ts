/**
 * Seeing through the commands that run another command (`env X=1 nohup timeout 5 rm x` runs rm):
 * what runs in the end, and what the wrappers on the way add to it (another user, a command line
 * for a shell, arguments read from input, files they write themselves).
 */
import { basename } from 'node:path'
import { sliceWord, type Word } from './words'

export interface Unwrapped {
  /** The command that runs in the end, with its arguments; [] when there is none. */
  words: Word[]
  /** Variables set for it: before it (`X=1 cmd`) or through env. */
  assignments: Word[]
  /** The first of sudo, su, doas, … on the way. */
  otherUser: string | null
  /** A wrapper on the way that runs the command with arguments read from its input (xargs, parallel). */
  perInput: string | null
  /** A command line a wrapper hands to a shell (watch, flock -c, npx -c): to be read as a script. */
  script: { words: Word[]; via: string } | null
  /** The folder a wrapper runs the command in (env -C). */
  chdir: Word | null
  /** Files the wrappers write themselves (time -o, flock's lock file). */
  writes: { word: Word; via: string }[]
  /** Why the wrappers alone make the command risky (env -S, chroot, unshare, nsenter). */
  reason: string | null
}

interface Wrapper {
  /** Options whose value is the next word. */
  valued: string[]
  /** Words between the options and the command: timeout's duration, taskset's mask, chrt's priority. */
  leading?: number
}

/** Wrappers that run the rest of the line as it is, after their own options. */
const wrappers: Record<string, Wrapper> = {
  command: { valued: [] },
  builtin: { valued: [] },
  exec: { valued: ['-a'] },
  nohup: { valued: [] },
  time: { valued: ['-f', '-o', '--format', '--output'] },
  nice: { valued: ['-n', '--adjustment'] },
  timeout: { valued: ['-s', '-k', '--signal', '--kill-after'], leading: 1 },
  stdbuf: { valued: ['-i', '-o', '-e', '--input', '--output', '--error'] },
  ionice: { valued: ['-c', '-n', '-p', '-P', '-u', '--class', '--classdata', '--pid', '--pgid', '--uid'] },
  setsid: { valued: [] },
  taskset: { valued: [], leading: 1 },
  chrt: { valued: ['-T', '-P', '-D', '--sched-runtime', '--sched-period', '--sched-deadline'], leading: 1 },
  busybox: { valued: [] },
  npx: { valued: ['-p', '--package'] },
  'xvfb-run': { valued: ['-n', '-s', '-f', '-e', '-p', '--server-num', '--server-args', '--auth-file', '--error-file'] },
  'dbus-run-session': { valued: ['--config-file', '--dbus-daemon'] },
  // xargs's -i, -e and -l take a value only when glued (-i{}), so they are not listed.
  xargs: {
    valued: [
      '-I',
      '-n',
      '-P',
      '-d',
      '-E',
      '-L',
      '-s',
      '-a',
      '--arg-file',
      '--delimiter',
      '--max-args',
      '--max-procs',
      '--max-lines',
      '--max-chars',
      '--process-slot-var',
    ],
  },
  parallel: {
    valued: [
      '-j',
      '-S',
      '-a',
      '-d',
      '-I',
      '--jobs',
      '--sshlogin',
      '--arg-file',
      '--delimiter',
      '--delay',
      '--timeout',
      '--joblog',
      '--results',
      '--colsep',
      '--tmpdir',
      '--workdir',
    ],
  },
  watch: { valued: ['-n', '--interval', '-q', '--equexit'] },
  flock: { valued: ['-w', '--timeout', '-E', '--conflict-exit-code'] },
  script: {
    valued: [
      '-c',
      '--command',
      '-E',
      '--echo',
      '-I',
      '--log-in',
      '-O',
      '--log-out',
      '-B',
      '--log-io',
      '-T',
      '--log-timing',
      '-m',
      '--logging-format',
    ],
  },
}
const asOtherUser = new Set(['sudo', 'su', 'doas', 'pkexec', 'run0', 'sudoedit'])
const otherUserValued = ['-u', '-g', '-C', '-D', '-h', '-p', '-r', '-t', '-U', '-T', '--user', '--group']
const perInput = new Set(['xargs', 'parallel'])
/** Reserved words that may start a simple command and are not the command. */
const reservedWords = new Set(['!', '{', '}', 'if', 'then', 'else', 'elif', 'fi', 'do', 'done', 'while', 'until', 'coproc'])
const elsewhere: Record<string, string> = {
  chroot: 'runs the command with another root folder (chroot)',
  unshare: 'runs the command in new namespaces (unshare)',
  nsenter: 'runs the command in the namespaces of another process (nsenter)',
}

export const isAssignment = (word: Word): boolean => /^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=/.test(word.text) && word.marks[0] === 'l'
export const commandName = (words: Word[]): string => (words[0] ? basename(words[0].text) : '')

/** Removes what comes before the real command: assignments, reserved words and wrappers (see Unwrapped). */
export function unwrap(input: Word[]): Unwrapped {
  const result: Unwrapped = {
    words: input,
    assignments: [],
    otherUser: null,
    perInput: null,
    script: null,
    chdir: null,
    writes: [],
    reason: null,
  }
  let words = input
  for (let guard = 0; guard < 20 && words.length > 0; guard++) {
    const first = words[0]!
    if (isAssignment(first)) {
      result.assignments.push(first)
      words = words.slice(1)
      continue
    }
    if (reservedWords.has(first.text) && !first.quoted) {
      words = words.slice(1)
      continue
    }
    if (first.text === 'function' && !first.quoted) {
      words = words.slice(2)
      continue
    }
    const name = basename(first.text)
    if (first.dynamicAt >= 0) break
    if (elsewhere[name]) {
      result.reason ??= elsewhere[name]!
      break
    }
    if (asOtherUser.has(name)) {
      result.otherUser ??= name
      words = name === 'su' ? [] : skipOptions(words.slice(1), otherUserValued)
      continue
    }
    if (name === 'env') {
      words = envCommand(words.slice(1), result)
      continue
    }
    if (name === 'command' && words.slice(1).some((word) => word.text === '-v' || word.text === '-V')) {
      words = []
      break
    }
    const wrapper = wrappers[name]
    if (!wrapper) break
    const options = optionsOf(words.slice(1), wrapper.valued)
    words = options.rest.slice(wrapper.leading ?? 0)
    if (perInput.has(name)) result.perInput ??= name
    if (name === 'time') result.writes.push(...options.values(['-o', '--output']).map((word) => ({ word, via: 'time -o' })))
    if (name === 'npx' && words.length > 0 && options.has('-c', '--call')) {
      // npx -c 'line': the value was taken as the command; it is a command line.
      result.script = { words: [options.rest[0]!], via: 'npx -c' }
      words = []
    }
    if (name === 'watch' && !options.has('-x', '--exec')) {
      result.script = { words, via: 'watch' }
      words = []
    }
    if (name === 'flock') words = flockCommand(words, result)
    if (name === 'script') {
      // script -c LINE [FILE] (also -qc LINE): runs LINE in a shell, records it in FILE.
      const glued = options.flagWords.some((flag) => /^-[a-zA-Z]+c$/.test(flag))
      const line = glued ? words.slice(0, 1) : options.values(['-c', '--command'])
      const files = glued ? words.slice(1) : words
      result.script = line.length > 0 ? { words: line, via: 'script -c' } : null
      result.writes.push(...files.slice(0, 1).map((word) => ({ word, via: 'script' })))
      words = []
    }
  }
  result.words = words
  return result
}

interface Options {
  /** The words after the options. */
  rest: Word[]
  /** The options, as written. */
  flagWords: string[]
  has(...flags: string[]): boolean
  values(flags: string[]): Word[]
}

function optionsOf(words: Word[], valued: string[]): Options {
  const flags: Word[] = []
  let i = 0
  while (i < words.length) {
    const text = words[i]!.text
    if (text === '--') {
      i += 1
      break
    }
    if (!text.startsWith('-') || text === '-') break
    flags.push(words[i]!)
    i += valued.includes(text) ? 2 : 1
  }
  return {
    rest: words.slice(i),
    flagWords: flags.map((flag) => flag.text),
    has: (...names) =>
      flags.some((flag) => names.includes(flag.text) || names.some((name) => name.startsWith('--') && flag.text.startsWith(`${name}=`))),
    values: (names) => words.slice(0, i).filter((_, index) => index > 0 && names.includes(words[index - 1]!.text)),
  }
}

export function skipOptions(words: Word[], valued: string[]): Word[] {
  return optionsOf(words, valued).rest
}

/** env's own words: assignments, options (-S is refused, -C moves the command), then the command. */
function envCommand(words: Word[], result: Unwrapped): Word[] {
  let i = 0
  while (i < words.length) {
    const word = words[i]!
    const text = word.text
    if (text === '--') return words.slice(i + 1)
    if (isAssignment(word)) {
      result.assignments.push(word)
      i += 1
    } else if (text === '-S' || text === '--split-string' || /^-[a-zA-Z]*S/.test(text) || text.startsWith('--split-string=')) {
      result.reason ??= 'env -S splits a string into a command line, which hides what runs (env -S)'
      return []
    } else if (text === '-C' || text === '--chdir') {
      result.chdir = words[i + 1] ?? null
      i += 2
    } else if (text.startsWith('--chdir=')) {
      result.chdir = sliceWord(word, '--chdir='.length)
      i += 1
    } else if (text === '-u' || text === '--unset' || text === '-P') {
      i += 2
    } else if (text.startsWith('-') && text !== '-') {
      i += 1
    } else {
      break
    }
  }
  return words.slice(i)
}

/** `flock [options] FILE COMMAND…`, `flock FILE -c LINE`, `flock FD`: the command, the lock file it creates. */
function flockCommand(words: Word[], result: Unwrapped): Word[] {
  const lock = words[0]
  if (!lock) return []
  if (/^\d+$/.test(lock.text) && words.length === 1) return []
  result.writes.push({ word: lock, via: 'flock' })
  const rest = words.slice(1)
  if (rest[0] && (rest[0].text === '-c' || rest[0].text === '--command')) {
    result.script = { words: rest.slice(1, 2), via: 'flock -c' }
    return []
  }
  return skipOptions(rest, [])
}
