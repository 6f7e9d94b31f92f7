/**
 * Which `bash` commands are risky (product.md §4): they need an approval before they run. Every
 * rule lives in this file; classifier.test.ts holds a table of commands with their verdicts.
 *
 * Risky:
 * - deletes: rm, rmdir, unlink, shred, wipe, srm, truncate, rimraf, trash, `find -delete`,
 *   `find -exec rm`, `xargs rm`, git clean, git rm (not --cached), rsync --delete /
 *   --remove-source-files;
 * - moves or overwrites outside plain edits: mv, dd, cp / install / `ln -f` onto an existing file;
 *   git changes that throw work away (reset --hard, checkout -f / `checkout -- paths` /
 *   `checkout .`, restore of the working tree, stash drop / clear, branch -D, filter-branch);
 * - runs as another user: sudo, su, doas, pkexec, run0, sudoedit;
 * - pipes a download into a shell: curl / wget / fetch / http / xh piped into sh, bash, zsh, …,
 *   python, perl, ruby, node or php reading the script from stdin; `sh <(curl …)`,
 *   `bash -c "$(curl …)"`, `eval "$(wget -O- …)"`, `source <(curl …)`;
 * - pushes with git (git push, and says so when forced), publishes a package (npm / yarn / pnpm
 *   publish);
 * - changes permissions or ownership: chmod, chown, chgrp, chattr, setfacl, chflags;
 * - writes outside the project: a redirection (`>`, `>>`, `&>`, `>|`, `<>`) or tee, touch, mkdir,
 *   cp, ln, install, rsync, scp, `sed -i`, `perl -i`, `curl -o`, `wget -O/-P`, `tar -x -C`,
 *   `unzip -d`, `git clone … DIR` aimed at a path outside the project's real path (absolute, `..`,
 *   `~`, `$HOME`, a symlink out, or after `cd` out of the project); a write to a device under
 *   /dev; global package installs (npm / pnpm -g, yarn global);
 * - obviously destructive: mkfs, mkswap, wipefs, fdisk, sfdisk, parted, shutdown, reboot, halt,
 *   poweroff, `kill -1` (every process), crontab -r, a fork bomb.
 *
 * Not risky: reading, searching, building, testing, git status / diff / log / add / commit,
 * creating folders and files inside the project, redirections inside the project (`echo x > f` is
 * a plain edit), writes to /dev/null and the standard streams, and writes to the temporary folders
 * (/tmp, /var/tmp, /dev/shm, the OS temp folder).
 *
 * How it reads a command: it splits on `;`, `&&`, `||`, `&`, `|` and newlines, removes quotes,
 * skips leading `VAR=value` assignments and reserved words (`then`, `do`, `!`, …), unwraps
 * `command`, `builtin`, `exec`, `env`, `nohup`, `time`, `nice`, `timeout`, `stdbuf`, `ionice`,
 * `xargs`, `npx`, `busybox`, and reads inside `bash -c '…'`, `eval`, `$(…)`, backticks, `<(…)`,
 * `find -exec …` and here-documents fed to a shell. It follows `cd` / `pushd` for relative paths
 * (a subshell's `cd` ends with the subshell).
 *
 * Limits (it is not a shell): no alias, function or variable expansion, so `$RM x` or a path held
 * in a variable (`> "$out"`) is not judged (`$HOME`, `$PWD`, `$TMPDIR` and `~` are); globs are
 * judged by their literal prefix; scripts and programs it runs (`./deploy.sh`, `make clean`,
 * `npm run reset`, `python -c "…"`, `node -e "…"`) are not looked into; `cp` over files inside a
 * destination folder is not detected; a command line that bash would reject is judged as written.
 */
import { basename, resolve } from 'node:path'
import { firstReason, optionValues, positionals } from './arguments'
import { changeDirectory, defaultTemporaryFolders, isExistingFile, locate, realPathOf, type Scope } from './paths'
import { parseShell, type Redirect, type SimpleCommand, type Word } from './shell-words'

export interface RiskClassification {
  risky: boolean
  /** What makes it risky, e.g. "deletes files (rm)"; null when it is not. */
  reason: string | null
}

/** Nested `bash -c`, `eval` and substitutions deeper than this are not read; the command counts as risky. */
const maxNesting = 6

export interface ClassifyOptions {
  /** Folders outside the project that may be written to. Default: /tmp, /var/tmp, /dev/shm and the OS temp folder. */
  temporaryFolders?: string[]
}

export function classifyCommand(command: string, projectDir: string, options: ClassifyOptions = {}): RiskClassification {
  const project = realPathOf(resolve(projectDir))
  const temporary = options.temporaryFolders?.map((folder) => realPathOf(resolve(folder))) ?? defaultTemporaryFolders()
  const reason = classifyScript(command, { project, temporary, cwd: project, nesting: 0 })
  return { risky: reason !== null, reason }
}

type Reason = string | null

// --- command sets ------------------------------------------------------------------------------

const deleters: Record<string, string> = {
  rm: 'deletes files',
  rmdir: 'deletes folders',
  unlink: 'deletes files',
  shred: 'deletes files',
  wipe: 'deletes files',
  srm: 'deletes files',
  rimraf: 'deletes files',
  trash: 'deletes files',
  'trash-put': 'deletes files',
  truncate: 'truncates files',
}
const asOtherUser = new Set(['sudo', 'su', 'doas', 'pkexec', 'run0', 'sudoedit'])
const permissionChangers = new Set(['chmod', 'chown', 'chgrp', 'chattr', 'setfacl', 'chflags'])
const diskTools = /^(mkfs(\..+)?|mke2fs|mkswap|wipefs|fdisk|sfdisk|cfdisk|gdisk|sgdisk|parted|mkntfs|mkdosfs|newfs)$/
const powerTools = new Set(['shutdown', 'reboot', 'halt', 'poweroff'])
const downloaders = new Set(['curl', 'wget', 'fetch', 'http', 'https', 'xh', 'lwp-request', 'aria2c'])
const shells = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'mksh', 'ash', 'fish', 'csh', 'tcsh', 'yash'])
const interpreters = /^(python[0-9.]*|pypy[0-9.]*|perl|ruby|node|nodejs|php|lua|bun|deno)$/
/** Words that may start a simple command and are not the command. */
const reservedWords = new Set(['!', '{', '}', 'if', 'then', 'else', 'elif', 'fi', 'do', 'done', 'while', 'until', 'coproc'])
/** Prefixes that run the rest of the line as a command, with the options each takes a value for. */
const wrappers: Record<string, { valued: Set<string>; leadingValues?: number }> = {
  command: { valued: new Set() },
  builtin: { valued: new Set() },
  exec: { valued: new Set(['-a']) },
  nohup: { valued: new Set() },
  time: { valued: new Set(['-f', '-o', '--format', '--output']) },
  nice: { valued: new Set(['-n', '--adjustment']) },
  timeout: { valued: new Set(['-s', '-k', '--signal', '--kill-after']), leadingValues: 1 },
  stdbuf: { valued: new Set(['-i', '-o', '-e']) },
  ionice: { valued: new Set(['-c', '-n', '-p', '-t']) },
  busybox: { valued: new Set() },
  npx: { valued: new Set(['-p', '--package', '-c', '--call']) },
  xargs: { valued: new Set(['-I', '-i', '-n', '-P', '-d', '-E', '-e', '-L', '-l', '-s', '-a', '--arg-file', '--delimiter', '--max-args', '--max-procs', '--replace']) },
}

// --- scripts, pipelines and commands ------------------------------------------------------------

function classifyScript(script: string, scope: Scope): Reason {
  if (scope.nesting > maxNesting) return 'too deeply nested to check (nested shells or substitutions)'
  // Bounded quantifiers keep this linear on long scripts (a here-document of data).
  if (/(?:^|[\s;&|(])([\w:.]{1,64})\s*\(\s*\)\s*\{[^}]{0,200}?\1\s*\|\s*\1\s*&/.test(script)) return 'a fork bomb (destructive)'
  const scopes: (string | null)[] = []
  for (const node of parseShell(script)) {
    if (node.kind === 'push') {
      scopes.push(scope.cwd)
      continue
    }
    if (node.kind === 'pop') {
      if (scopes.length > 0) scope.cwd = scopes.pop()!
      continue
    }
    const reason = classifyPipeline(node.commands, scope)
    if (reason) return reason
  }
  return null
}

function classifyPipeline(commands: SimpleCommand[], scope: Scope): Reason {
  // A download piped into a shell: any downloader stage followed by a stage running stdin as code.
  const downloadAt = commands.findIndex((command) => downloaders.has(commandName(unwrap(command.words).words)))
  if (downloadAt >= 0) {
    for (const command of commands.slice(downloadAt + 1)) {
      const { words } = unwrap(command.words)
      if (runsStdinAsCode(words)) {
        return `pipes a download into a shell (${commandName(unwrap(commands[downloadAt]!.words).words)} | ${commandName(words)})`
      }
    }
  }
  for (const command of commands) {
    const reason = classifySimpleCommand(command, scope, commands.length === 1)
    if (reason) return reason
  }
  return null
}

/** One simple command: its substitutions, its redirections, then the command's own rules. */
function classifySimpleCommand(command: SimpleCommand, scope: Scope, alone: boolean): Reason {
  const nested: Scope = { ...scope, nesting: scope.nesting + 1 }
  for (const word of [...command.words, ...command.redirects.flatMap((redirect) => (redirect.target ? [redirect.target] : []))]) {
    for (const inner of word.substitutions) {
      const reason = classifyScript(inner, { ...nested })
      if (reason) return reason
    }
  }
  for (const redirect of command.redirects) {
    const reason = classifyRedirect(redirect, scope)
    if (reason) return reason
  }
  const { words, otherUser } = unwrap(command.words)
  if (otherUser) return `runs as another user (${otherUser})`
  if (words.length === 0) return null
  const name = commandName(words)
  const args = words.slice(1)
  const text = args.map((word) => word.text)

  // A shell or interpreter given code: read the code.
  if (fedDownloadedCode(name, args, command.redirects)) return `pipes a download into a shell (${name} running a download)`
  if (shells.has(name)) {
    const script = inlineScript(args)
    if (script !== null) return classifyScript(script, { ...nested })
    const heredoc = command.redirects.find((redirect) => redirect.body !== undefined)
    if (heredoc && text.every((arg) => arg.startsWith('-'))) return classifyScript(heredoc.body!, { ...nested })
    return null
  }
  if (name === 'eval') return classifyScript(text.join(' '), { ...nested })

  if (name === 'cd' || name === 'pushd') {
    if (alone) scope.cwd = changeDirectory(args, scope)
    return null
  }
  if (name === 'popd') {
    if (alone) scope.cwd = null
    return null
  }

  if (deleters[name]) return `${deleters[name]} (${name})`
  if (name === 'mv') return 'moves files (mv)'
  if (name === 'dd') return 'writes raw data (dd)'
  if (permissionChangers.has(name)) return `changes permissions or ownership (${name})`
  if (diskTools.test(name)) return `formats or partitions a disk (${name}, destructive)`
  if (powerTools.has(name)) return `shuts down or reboots the machine (${name}, destructive)`
  if (name === 'kill' && killsEveryProcess(text)) return 'kills every process (kill -1, destructive)'
  if (name === 'crontab' && text.some((arg) => /^-[a-z]*r/.test(arg))) return 'deletes the crontab (crontab -r)'
  if (name === 'find') return classifyFind(args, scope, nested)
  if (name === 'git') return classifyGit(args, scope)
  if (name === 'npm' || name === 'pnpm' || name === 'yarn') return classifyPackageManager(name, text)
  return classifyWriter(name, args, scope)
}

// --- unwrapping --------------------------------------------------------------------------------

const isAssignment = (word: Word): boolean => /^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=/.test(word.text)
const commandName = (words: Word[]): string => (words[0] ? basename(words[0].text) : '')

/**
 * Removes what comes before the real command: assignments, reserved words and wrappers. Reports
 * sudo and the like (their command is then unwrapped too, for the download check).
 */
function unwrap(input: Word[]): { words: Word[]; otherUser: string | null } {
  let words = input
  let otherUser: string | null = null
  for (let guard = 0; guard < 20 && words.length > 0; guard++) {
    const first = words[0]!
    if (isAssignment(first) || (reservedWords.has(first.text) && !first.quoted)) {
      words = words.slice(1)
      continue
    }
    if (first.text === 'function' && !first.quoted) {
      words = words.slice(2)
      continue
    }
    const name = basename(first.text)
    if (asOtherUser.has(name)) {
      otherUser ??= name
      words = skipOptions(words.slice(1), new Set(['-u', '-g', '-C', '-D', '-h', '-p', '-r', '-t', '-U', '-T', '--user', '--group']))
      if (name === 'su') words = []
      continue
    }
    if (name === 'env') {
      words = skipEnvOptions(words.slice(1))
      continue
    }
    if (name === 'command' && words.slice(1).some((word) => word.text === '-v' || word.text === '-V')) return { words: [], otherUser }
    const wrapper = wrappers[name]
    if (!wrapper) break
    words = skipOptions(words.slice(1), wrapper.valued)
    if (name === 'nice' && words[0] && /^-\d+$/.test(words[0].text)) words = words.slice(1)
    words = words.slice(wrapper.leadingValues ?? 0)
  }
  return { words, otherUser }
}

function skipOptions(words: Word[], valued: Set<string>): Word[] {
  let i = 0
  while (i < words.length) {
    const text = words[i]!.text
    if (text === '--') return words.slice(i + 1)
    if (!text.startsWith('-') || text === '-') break
    i += valued.has(text) ? 2 : 1
  }
  return words.slice(i)
}

function skipEnvOptions(words: Word[]): Word[] {
  let i = 0
  while (i < words.length) {
    const word = words[i]!
    if (word.text === '--') return words.slice(i + 1)
    if (isAssignment(word)) i += 1
    else if (['-u', '--unset', '-C', '--chdir'].includes(word.text)) i += 2
    else if (word.text.startsWith('-') && word.text !== '-') i += 1
    else break
  }
  return words.slice(i)
}

// --- rules -------------------------------------------------------------------------------------

/** A stage that would run its standard input as code: a shell or interpreter with no script argument. */
function runsStdinAsCode(words: Word[]): boolean {
  const name = commandName(words)
  if (name === 'source' || name === '.') return words.slice(1).some((word) => ['/dev/stdin', '-', '/proc/self/fd/0'].includes(word.text))
  if (!shells.has(name) && !interpreters.test(name)) return false
  const args = words.slice(1).map((word) => word.text)
  if (shells.has(name) && inlineScript(words.slice(1)) !== null) return false
  // python -m json.tool, node script.js: the program is not stdin. Flags like -s, -, -u keep reading it.
  const valued = new Set(['-m', '-c', '-e', '-r', '--eval', '--require', '-W', '-X', '-o', '-O'])
  let i = 0
  while (i < args.length) {
    const arg = args[i]!
    // `sh -s -- -y` (rustup's installer): -s and -- leave the script on stdin, the rest are its arguments.
    if (arg === '-' || arg === '/dev/stdin' || arg === '--' || (arg === '-s' && shells.has(name))) return true
    if (!arg.startsWith('-')) return false
    if (valued.has(arg)) return false
    i += 1
  }
  return true
}

/** `sh <(curl …)`, `bash -c "$(curl …)"`, `eval "$(wget -O- …)"`, `source <(curl …)`, `bash < <(curl …)`. */
function fedDownloadedCode(name: string, args: Word[], redirects: Redirect[]): boolean {
  if (!shells.has(name) && !interpreters.test(name) && name !== 'eval' && name !== 'source' && name !== '.') return false
  const inputs = [...args, ...redirects.filter((redirect) => redirect.op === '<' && redirect.target).map((redirect) => redirect.target!)]
  return inputs.some((word) =>
    word.substitutions.some((inner) =>
      parseShell(inner).some(
        (node) => node.kind === 'pipeline' && node.commands.some((command) => downloaders.has(commandName(unwrap(command.words).words))),
      ),
    ),
  )
}

/** The script of `sh -c SCRIPT` (also `-ec`, `-lc`, …), or null. */
function inlineScript(args: Word[]): string | null {
  for (let i = 0; i < args.length; i++) {
    const text = args[i]!.text
    if (!text.startsWith('-') || text === '-' || text === '--') return null
    if (/^-[a-zA-Z]*c[a-zA-Z]*$/.test(text)) return args[i + 1]?.text ?? ''
    if (text === '-o' || text === '-O' || text === '+O' || text === '+o') i += 1
  }
  return null
}

function killsEveryProcess(args: string[]): boolean {
  const afterDashes = args.indexOf('--')
  if (afterDashes >= 0) return args.slice(afterDashes + 1).includes('-1')
  // `kill -1` alone names signal 1; a -1 after a signal (`kill -9 -1`, `kill -s KILL -1`) is "every process".
  const signalValued = args[0] === '-s' || args[0] === '-n' ? 2 : 1
  return args.length > signalValued && args.slice(signalValued).includes('-1')
}

function classifyFind(args: Word[], scope: Scope, nested: Scope): Reason {
  for (let i = 0; i < args.length; i++) {
    const text = args[i]!.text
    if (text === '-delete') return 'deletes files (find -delete)'
    if (['-exec', '-execdir', '-ok', '-okdir'].includes(text)) {
      const end = args.findIndex((word, index) => index > i && (word.text === ';' || word.text === '+'))
      const inner = args.slice(i + 1, end < 0 ? args.length : end)
      const reason = classifySimpleCommand({ words: inner, redirects: [] }, { ...nested, cwd: scope.cwd }, true)
      if (reason) return reason.includes('(') ? reason.replace(/\(([^)]*)\)/, `(find ${text} $1)`) : reason
      if (end < 0) break
      i = end
    }
  }
  return null
}

function classifyGit(args: Word[], scope: Scope): Reason {
  // Global options before the subcommand: -C DIR, -c KEY=VALUE, --git-dir=…, --no-pager, …
  let i = 0
  while (i < args.length && args[i]!.text.startsWith('-')) {
    i += ['-C', '-c', '--git-dir', '--work-tree', '--namespace', '--exec-path'].includes(args[i]!.text) ? 2 : 1
  }
  const sub = args[i]?.text
  const rest = args.slice(i + 1).map((word) => word.text)
  const has = (...flags: string[]): boolean => rest.some((arg) => flags.includes(arg))
  const hasShort = (letter: string): boolean => rest.some((arg) => /^-[a-zA-Z]+$/.test(arg) && arg.includes(letter))
  switch (sub) {
    case 'push': {
      if (has('--delete') || hasShort('d') || rest.some((arg) => arg.startsWith(':') && arg.length > 1)) {
        return 'pushes with git, deleting a remote branch (git push --delete)'
      }
      const forced = has('--force', '--force-with-lease', '--force-if-includes', '--mirror') || hasShort('f') ||
        rest.some((arg) => arg.startsWith('--force-with-lease=') || (arg.startsWith('+') && arg.length > 1))
      return forced ? 'force-pushes with git (git push --force)' : 'pushes with git (git push)'
    }
    case 'clean':
      return has('-n', '--dry-run') || hasShort('n') ? null : 'deletes untracked files (git clean)'
    case 'rm':
      return has('--cached') ? null : 'deletes files (git rm)'
    case 'reset':
      return has('--hard', '--merge', '--keep') ? 'discards uncommitted changes (git reset --hard)' : null
    case 'checkout':
      return has('-f', '--force', '--', '.') || hasShort('f') ? 'discards uncommitted changes (git checkout)' : null
    case 'restore':
      return (has('--staged', '-S') && !has('--worktree', '-W')) ? null : 'discards uncommitted changes (git restore)'
    case 'stash':
      return rest[0] === 'drop' || rest[0] === 'clear' ? `drops stashed changes (git stash ${rest[0]})` : null
    case 'branch':
      return has('-D') || (has('-d', '--delete') && has('-f', '--force')) ? 'deletes a branch (git branch -D)' : null
    case 'filter-branch':
    case 'filter-repo':
      return `rewrites history (git ${sub})`
    case 'clone': {
      const positional = rest.filter((arg) => !arg.startsWith('-'))
      const target = args.slice(i + 1).filter((word) => !word.text.startsWith('-'))[1]
      return positional.length >= 2 && target ? writeOutside(target, scope, 'git clone') : null
    }
    default:
      return null
  }
}

function classifyPackageManager(name: string, args: string[]): Reason {
  const sub = args.find((arg) => !arg.startsWith('-'))
  if (sub === 'publish' || (name === 'yarn' && sub === 'npm' && args.includes('publish'))) return `publishes a package (${name} publish)`
  const global = args.some((arg) => ['-g', '--global', '--location=global'].includes(arg)) || (name === 'yarn' && sub === 'global')
  const installs = ['install', 'i', 'add', 'uninstall', 'remove', 'rm', 'un', 'update', 'up', 'link', 'global'].includes(sub ?? '')
  return global && installs ? `writes outside the project (${name} global install)` : null
}

/** Commands that write to paths given as arguments: judged by where those paths are. */
function classifyWriter(name: string, args: Word[], scope: Scope): Reason {
  const text = args.map((word) => word.text)
  switch (name) {
    case 'touch':
    case 'mkdir':
    case 'tee':
      return firstReason(positionals(args, new Set(['-m', '-d', '-t', '-r', '--mode', '--date', '--reference'])), (word) => writeOutside(word, scope, name))
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
      const target = targetFlag >= 0 ? args[targetFlag + 1] : attached ? { ...attached, text: attached.text.slice('--target-directory='.length) } : files.length >= 2 ? files.at(-1) : undefined
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
      if (name === 'rsync' && text.some((arg) => arg.startsWith('--delete') || arg === '--remove-source-files')) return 'deletes files (rsync --delete)'
      const files = positionals(args, new Set(['-e', '-i', '-P', '-o', '-F', '-J', '-l', '--rsh', '--exclude', '--include', '--filter', '--exclude-from', '--include-from', '--files-from']))
      const target = files.length >= 2 ? files.at(-1)! : undefined
      if (!target) return null
      if (/^[^/]*:/.test(target.text)) return `writes outside the project (${name} to another machine)`
      return writeOutside(target, scope, name)
    }
    case 'sed':
    case 'perl':
      if (!text.some((arg) => arg.startsWith('--in-place') || /^-[a-zA-Z]*i/.test(arg))) return null
      return firstReason(positionals(args, new Set(['-e', '-f', '-l', '--expression', '--file'])), (word) => writeOutside(word, scope, `${name} -i`))
    case 'curl':
    case 'wget': {
      const valued = name === 'curl' ? ['-o', '--output', '--output-dir'] : ['-O', '--output-document', '-P', '--directory-prefix', '-o', '--output-file', '-a', '--append-output']
      return firstReason(optionValues(args, valued), (word) => (word.text === '-' ? null : writeOutside(word, scope, name)))
    }
    case 'tar': {
      const extracting = text.some((arg) => arg === '--extract' || arg === '--get' || /^-?[a-zA-Z]*x/.test(arg))
      return extracting ? firstReason(optionValues(args, ['-C', '--directory']), (word) => writeOutside(word, scope, 'tar -C')) : null
    }
    case 'unzip':
      return firstReason(optionValues(args, ['-d']), (word) => writeOutside(word, scope, 'unzip -d'))
    default:
      return null
  }
}

function classifyRedirect(redirect: Redirect, scope: Scope): Reason {
  const writes = ['>', '>>', '>|', '&>', '&>>', '<>'].includes(redirect.op) || (redirect.op === '>&' && !!redirect.target && !/^(\d+|-)$/.test(redirect.target.text))
  if (!writes || !redirect.target) return null
  return writeOutside(redirect.target, scope, redirect.op)
}

function writeOutside(word: Word, scope: Scope, via: string): Reason {
  const place = locate(word, scope)
  if (place === 'device') return `writes to a device (${via} ${word.text})`
  if (place === 'outside') return `writes outside the project (${via} ${word.text})`
  return null
}
