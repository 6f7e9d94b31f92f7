/**
 * Which `bash` commands are risky (product.md §4): they need an approval before they run. This is
 * the approval layer, not the boundary (the OS sandbox is): it has to tell the approver what a
 * command does, and call risky what it cannot tell. The rules are listed here and live in this
 * file, except git's (git.ts) and the writers' (writes.ts); classifier.test.ts holds a table of
 * commands with their verdicts.
 *
 * Risky:
 * - deletes: rm, rmdir, unlink, shred, wipe, srm, truncate, rimraf, trash, `find -delete`,
 *   `find -exec rm`, `xargs rm`, git clean, git rm (not --cached), git prune, rsync --delete /
 *   --remove-source-files;
 * - moves or overwrites outside plain edits: mv, dd, cp / install / `ln -f` onto an existing file;
 *   git changes that throw work away (reset --hard, checkout -f / `checkout -- paths` /
 *   `checkout .`, switch --discard-changes, restore of the working tree, stash drop / clear,
 *   branch -D, reflog expire, filter-branch);
 * - runs as another user: sudo, su, doas, pkexec, run0, sudoedit; or in another root or
 *   namespace: chroot, unshare, nsenter;
 * - a command whose name is built when it runs: `$X`, `${X:-rm}`, `$(…)`, backticks, a glob, as
 *   the command; a name written with ANSI-C quoting (`$'\x72m'`); `eval` of anything not
 *   literal; `bash -c`, `watch`, `flock -c`, `npx -c`, `alias`, `trap` given a command line that is
 *   not literal; `source` / `.` / `bash` of a file named at run time (`source "$f"`, `bash <(…)`);
 *   the output of a command piped into a shell (`… | sh`); `env -S`; xargs, parallel and
 *   `find -exec` running anything but a read-only command (cat, grep, wc, …) on what they read;
 * - variables that make a command run other code: LD_PRELOAD and the loader's others, BASH_ENV,
 *   ENV, PS4, git's GIT_CONFIG_* / GIT_DIR / GIT_EXEC_PATH, and a command-valued one
 *   (GIT_PAGER, GIT_SSH_COMMAND, EDITOR, …) whose command line is risky or not literal;
 * - git configuration that can run commands (git.ts): `git -c` of a key outside a short list of
 *   harmless ones (alias.*, core.* among the risky), `--config-env`, `--exec-path=`, a
 *   subcommand that is not one of git's own (an alias), `git config` setting such a key or
 *   writing --global, --upload-pack / --receive-pack / --template / --extcmd / `-O`, rebase
 *   --exec and bisect run of a risky command, submodule foreach, hook run, credential, daemon;
 * - pipes a download into a shell: curl / wget / fetch / http / xh piped into sh, bash, zsh, …,
 *   python, perl, ruby, node or php reading the script from stdin; `sh <(curl …)`,
 *   `bash -c "$(curl …)"`, `eval "$(wget -O- …)"`, `source <(curl …)`;
 * - pushes with git (git push, and says so when forced), publishes a package (npm / yarn / pnpm
 *   publish);
 * - changes permissions or ownership: chmod, chown, chgrp, chattr, setfacl, chflags;
 * - writes where it should not, or where it cannot be told: a redirection (`>`, `>>`, `&>`, `>|`,
 *   `<>`) or tee, touch, mkdir, cp, ln, install, rsync, scp, `dd of=`, `time -o`, flock's lock
 *   file, `sed -i`, `perl -i`, `curl -o`, `wget -O/-P`, `tar -x -C`, `tar -cf`, `unzip -d`, `git
 *   clone … DIR` aimed at a path outside the project's real path (absolute, `..`, `~`, `$HOME`, a
 *   symlink out, or after `cd` out of the project), into its .git folder (hooks and config run
 *   commands), or at a path known only when the command runs (a variable, `$(…)`, `~user`, a glob
 *   or a brace expansion; `sed -i`, `perl -i`, touch and mkdir may glob their last component); a
 *   write to a device under /dev; global package installs (npm / pnpm -g, yarn global);
 * - runs commands elsewhere: ssh with a command, at, batch, systemd-run, tmux, screen, crontab
 *   installs;
 * - obviously destructive: mkfs, mkswap, wipefs, fdisk, sfdisk, parted, shutdown, reboot, halt,
 *   poweroff, `kill -1` (every process), crontab -r, a fork bomb.
 *
 * Not risky: reading, searching, building, testing, git status / diff / log / add / commit,
 * creating folders and files inside the project, redirections inside the project (`echo x > f` is
 * a plain edit), writes to /dev/null and the standard streams, and writes to the temporary folders
 * (/tmp, /var/tmp, /dev/shm, the OS temp folder).
 *
 * How it reads a command (shell-words.ts, wrappers.ts): it splits on `;`, `&&`, `||`, `&`, `|` and
 * newlines, removes quotes, expands braces, skips leading `VAR=value` assignments and reserved
 * words (`then`, `do`, `!`, …), unwraps `command`, `builtin`, `exec`, `env`, `nohup`, `time`,
 * `nice`, `timeout`, `stdbuf`, `ionice`, `setsid`, `taskset`, `chrt`, `flock`, `watch`, `xargs`,
 * `parallel`, `npx`, `busybox`, `sudo` and the like, and reads inside `bash -c '…'`, `eval`,
 * `$(…)`, backticks, `<(…)`, `${X:-$(…)}`, `$((…))`, `find -exec …`, here-documents and
 * here-strings fed to a shell. It follows `cd` / `pushd` for relative paths (a subshell's `cd`
 * ends with the subshell).
 *
 * Limits (it is not a shell): no alias or function expansion, and variables are not followed
 * (`X=rm; $X` is risky because `$X` is the command, not because X is rm); scripts and programs it
 * runs (`./deploy.sh`, `make clean`, `npm run reset`, `python -c "…"`, `node -e "…"`, `sed`'s `w`
 * and `e` commands, `awk`'s `system`) are not looked into, nor programs' own output options
 * besides those listed; PATH is not judged; `cp` over files inside a destination folder is not
 * detected; a command line that bash would reject is judged as written.
 */
import { resolve } from 'node:path'
import { firstReason } from './arguments'
import { classifyGit } from './git'
import { changeDirectory, defaultTemporaryFolders, realPathOf, type Scope } from './paths'
import { parseShell, type Redirect, type SimpleCommand } from './shell-words'
import { makeWord, sliceWord, type Word } from './words'
import { commandName, isAssignment, skipOptions, unwrap } from './wrappers'
import { classifyRedirect, classifyWriter, writeOutside } from './writes'

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
const permissionChangers = new Set(['chmod', 'chown', 'chgrp', 'chattr', 'setfacl', 'chflags'])
const diskTools = /^(mkfs(\..+)?|mke2fs|mkswap|wipefs|fdisk|sfdisk|cfdisk|gdisk|sgdisk|parted|mkntfs|mkdosfs|newfs)$/
const powerTools = new Set(['shutdown', 'reboot', 'halt', 'poweroff'])
const downloaders = new Set(['curl', 'wget', 'fetch', 'http', 'https', 'xh', 'lwp-request', 'aria2c'])
const shells = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'mksh', 'ash', 'fish', 'csh', 'tcsh', 'yash'])
const interpreters = /^(python[0-9.]*|pypy[0-9.]*|perl|ruby|node|nodejs|php|lua|bun|deno)$/
/** Commands that only read: what xargs, parallel and `find -exec` may run on names they read. */
const readOnly = new Set([
  'cat',
  'head',
  'tail',
  'wc',
  'grep',
  'egrep',
  'fgrep',
  'rg',
  'ls',
  'stat',
  'file',
  'du',
  'echo',
  'printf',
  'basename',
  'dirname',
  'realpath',
  'readlink',
  'md5sum',
  'sha1sum',
  'sha256sum',
  'sha512sum',
  'b2sum',
  'cksum',
  'sort',
  'uniq',
  'cut',
  'nl',
  'od',
  'xxd',
  'hexdump',
  'strings',
  'diff',
  'cmp',
  'test',
  '[',
  'true',
  'false',
  'jq',
])
/** Commands that run their command elsewhere, out of this shell's reach. */
const runsElsewhere: Record<string, string> = {
  at: 'schedules a command to run later (at)',
  batch: 'schedules a command to run later (batch)',
  'systemd-run': 'runs a command as a system service (systemd-run)',
  tmux: 'runs commands in a terminal multiplexer, which may be outside this sandbox (tmux)',
  screen: 'runs commands in a terminal multiplexer, which may be outside this sandbox (screen)',
}
/** Variables that make any command load or run other code. */
const codeVariables =
  /^(LD_[A-Z_]+|DYLD_[A-Z_]+|BASH_ENV|ENV|PS4|PROMPT_COMMAND|SHELLOPTS|BASHOPTS|GIT_CONFIG(_[A-Z0-9_]+)?|GIT_DIR|GIT_WORK_TREE|GIT_EXEC_PATH|GIT_TEMPLATE_DIR)$/
/** Variables holding a command line that programs run (git's pager, editor, ssh). */
const commandVariables = new Set([
  'GIT_PAGER',
  'PAGER',
  'MANPAGER',
  'GIT_EDITOR',
  'GIT_SEQUENCE_EDITOR',
  'EDITOR',
  'VISUAL',
  'GIT_SSH',
  'GIT_SSH_COMMAND',
  'GIT_ASKPASS',
  'SSH_ASKPASS',
  'SUDO_ASKPASS',
  'GIT_PROXY_COMMAND',
  'GIT_EXTERNAL_DIFF',
])
const declarers = new Set(['export', 'declare', 'typeset', 'local', 'readonly'])

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

/** A command line given as words (`bash -c LINE`, `watch a b c`): read when literal, risky when built at run time. */
function classifyLine(words: Word[], via: string, scope: Scope): Reason {
  const built = words.find((word) => word.dynamicAt >= 0)
  if (built) return `runs a command line built when the command runs (${via} ${built.source})`
  return classifyScript(words.map((word) => word.text).join(' '), { ...scope, nesting: scope.nesting + 1 })
}

function classifyPipeline(commands: SimpleCommand[], scope: Scope): Reason {
  const stages = commands.map((command) => unwrap(command.words).words)
  // A download piped into a shell: any downloader stage followed by a stage running stdin as code.
  const downloadAt = stages.findIndex((words) => downloaders.has(commandName(words)))
  if (downloadAt >= 0) {
    for (const words of stages.slice(downloadAt + 1)) {
      if (runsStdinAsCode(words)) return `pipes a download into a shell (${commandName(stages[downloadAt]!)} | ${commandName(words)})`
    }
  }
  for (let i = 1; i < stages.length; i++) {
    const name = commandName(stages[i]!)
    if ((shells.has(name) || name === 'source' || name === '.') && runsStdinAsCode(stages[i]!)) {
      return `runs the output of another command as shell code (${commandName(stages[i - 1]!) || '…'} | ${name})`
    }
  }
  for (const command of commands) {
    const reason = classifySimpleCommand(command, scope, commands.length === 1)
    if (reason) return reason
  }
  return null
}

/** One simple command: its substitutions, its redirections, what wraps it, then the command's own rules. */
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
  const unwrapped = unwrap(command.words)
  if (unwrapped.reason) return unwrapped.reason
  if (unwrapped.otherUser) return `runs as another user (${unwrapped.otherUser})`
  const setReason = firstReason(unwrapped.assignments, (word) => classifyAssignment(word, scope))
  if (setReason) return setReason
  for (const { word, via } of unwrapped.writes) {
    const reason = writeOutside(word, scope, via)
    if (reason) return reason
  }
  if (unwrapped.script) return classifyLine(unwrapped.script.words, unwrapped.script.via, scope)
  const { words } = unwrapped
  if (words.length === 0) return null
  const computed = computedName(words[0]!)
  if (computed) return computed
  // env -C DIR: the command's relative paths are relative to DIR.
  const commandScope = unwrapped.chdir ? { ...scope, cwd: changeDirectory([unwrapped.chdir], scope) } : scope
  if (unwrapped.perInput) return classifyPerInput(words, unwrapped.perInput, commandScope)
  return classifyCommandWords(words, command.redirects, commandScope, alone)
}

/** Why the command word is not a name that can be judged: it is computed, a glob, or spelled in ANSI-C quoting. */
function computedName(word: Word): Reason {
  if (word.dynamicAt >= 0) return `the command name is computed when the command runs (${word.source})`
  if (word.globAt >= 0 && word.text !== '[') return `the command name is a glob pattern, expanded when the command runs (${word.source})`
  if (word.marks.includes('a'))
    return `the command name is written with ANSI-C quoting, which hides what runs (${word.source} is ${word.text})`
  return null
}

/** A command xargs or parallel runs with arguments it reads: risky unless it only reads. */
function classifyPerInput(words: Word[], via: string, scope: Scope): Reason {
  const reason = classifyCommandWords(words, [], { ...scope, nesting: scope.nesting + 1 }, false)
  if (reason) return reason
  const name = commandName(words)
  return readOnly.has(name) ? null : `runs ${name} on arguments read when the command runs (${via} ${name})`
}

/** The rules for the command itself, once it is unwrapped. */
function classifyCommandWords(words: Word[], redirects: Redirect[], scope: Scope, alone: boolean): Reason {
  const nested: Scope = { ...scope, nesting: scope.nesting + 1 }
  const name = commandName(words)
  const args = words.slice(1)
  const text = args.map((word) => word.text)

  // A shell or interpreter given code: read the code.
  if (fedDownloadedCode(name, args, redirects)) return `pipes a download into a shell (${name} running a download)`
  if (shells.has(name)) return classifyShell(name, args, redirects, scope)
  if (name === 'eval') return classifyLine(args, 'eval', scope)
  if (name === 'source' || name === '.') {
    const file = args[0]
    return file && file.dynamicAt >= 0 ? `runs a script whose name is known only when the command runs (${name} ${file.source})` : null
  }
  if (name === 'alias')
    return firstReason(
      args.filter((word) => word.text.includes('=')),
      (word) => classifyLine([sliceWord(word, word.text.indexOf('=') + 1)], 'alias', scope),
    )
  if (name === 'trap' && args[0] && !args[0].text.startsWith('-')) return classifyLine([args[0]], 'trap', scope)
  if (declarers.has(name)) return firstReason(args.filter(isAssignment), (word) => classifyAssignment(word, scope))
  if (runsElsewhere[name]) return runsElsewhere[name]!
  if (name === 'ssh' && sshRunsCommand(text)) return 'runs a command on another machine (ssh)'

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
  if (name === 'dd')
    return (
      firstReason(
        args.filter((word) => word.text.startsWith('of=')),
        (word) => writeOutside(sliceWord(word, 3), scope, 'dd'),
      ) ?? 'writes raw data (dd)'
    )
  if ((name === 'npm' || name === 'pnpm' || name === 'yarn') && packageRunner(args)) return classifyPackageRunner(name, args, scope)
  if (permissionChangers.has(name)) return `changes permissions or ownership (${name})`
  if (diskTools.test(name)) return `formats or partitions a disk (${name}, destructive)`
  if (powerTools.has(name)) return `shuts down or reboots the machine (${name}, destructive)`
  if (name === 'kill' && killsEveryProcess(text)) return 'kills every process (kill -1, destructive)'
  if (name === 'crontab') return classifyCrontab(text)
  if (name === 'find') return classifyFind(args, scope)
  if (name === 'git') {
    return classifyGit(args, {
      write: (word, via) => writeOutside(word, scope, via),
      outside: (word, via) => writeOutside(word, scope, via, 'refuse', true),
      script: (line, via) => classifyLine(line, via, scope),
      command: (inner) => classifySimpleCommand({ words: inner, redirects: [] }, nested, false),
    })
  }
  if (name === 'npm' || name === 'pnpm' || name === 'yarn') return classifyPackageManager(name, text)
  return classifyWriter(name, args, scope)
}

// --- rules -------------------------------------------------------------------------------------

/** `bash -c LINE`, `bash FILE`, `bash <<EOF`, `bash <<< LINE`: the code it runs, when it can be read. */
function classifyShell(name: string, args: Word[], redirects: Redirect[], scope: Scope): Reason {
  const nested: Scope = { ...scope, nesting: scope.nesting + 1 }
  const inline = inlineScript(args)
  if (inline) return classifyLine([inline], `${name} -c`, scope)
  const file = scriptFile(args)
  if (file && file.dynamicAt >= 0) return `runs a script whose name is known only when the command runs (${name} ${file.source})`
  if (file) return null
  for (const redirect of redirects) {
    if (redirect.body !== undefined) return classifyScript(redirect.body, nested)
    if (redirect.op === '<<<' && redirect.target) return classifyLine([redirect.target], `${name} <<<`, scope)
    if (redirect.op === '<' && redirect.target && redirect.target.dynamicAt >= 0) {
      return `runs a script whose name is known only when the command runs (${name} < ${redirect.target.source})`
    }
  }
  return null
}

/** A variable assignment (`X=v cmd`, `env X=v`, `export X=v`): risky when X makes programs run other code. */
function classifyAssignment(word: Word, scope: Scope): Reason {
  const at = word.text.indexOf('=')
  const name = word.text.slice(0, at).replace(/\[.*$/, '').replace(/\+$/, '')
  if (codeVariables.test(name)) return `sets ${name}, which makes programs load or run other code (${name}=…)`
  if (!commandVariables.has(name)) return null
  const value = sliceWord(word, at + 1)
  if (value.dynamicAt >= 0) return `sets ${name} to a command line known only when the command runs (${word.source})`
  return classifyScript(value.text, { ...scope, nesting: scope.nesting + 1 })
}

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
  const inputs = [
    ...args,
    ...redirects
      .filter((redirect) => (redirect.op === '<' || redirect.op === '<<<') && redirect.target)
      .map((redirect) => redirect.target!),
  ]
  return inputs.some((word) =>
    word.substitutions.some((inner) =>
      parseShell(inner).some(
        (node) => node.kind === 'pipeline' && node.commands.some((command) => downloaders.has(commandName(unwrap(command.words).words))),
      ),
    ),
  )
}

/** The script word of `sh -c SCRIPT` (also `-ec`, `-lc`, …), an empty word for `sh -c` alone, or null. */
function inlineScript(args: Word[]): Word | null {
  for (let i = 0; i < args.length; i++) {
    const text = args[i]!.text
    if (!text.startsWith('-') || text === '-' || text === '--') return null
    if (/^-[a-zA-Z]*c[a-zA-Z]*$/.test(text)) return args[i + 1] ?? makeWord('', '', [], '')
    if (text === '-o' || text === '-O' || text === '+O' || text === '+o') i += 1
  }
  return null
}

/** The script file of `sh [options] FILE …`, or null when it reads stdin. */
function scriptFile(args: Word[]): Word | null {
  const rest = skipOptions(args, ['-o', '-O', '+o', '+O', '--rcfile', '--init-file'])
  return rest[0] && rest[0].text !== '-' ? rest[0] : null
}

function sshRunsCommand(args: string[]): boolean {
  const valued = new Set([
    '-b',
    '-c',
    '-D',
    '-E',
    '-e',
    '-F',
    '-I',
    '-i',
    '-J',
    '-L',
    '-l',
    '-m',
    '-O',
    '-o',
    '-p',
    '-Q',
    '-R',
    '-S',
    '-W',
    '-w',
    '-B',
  ])
  let i = 0
  while (i < args.length && args[i]!.startsWith('-')) i += valued.has(args[i]!) ? 2 : 1
  return args.length > i + 1
}

function classifyCrontab(args: string[]): Reason {
  if (args.some((arg) => /^-[a-z]*r/.test(arg))) return 'deletes the crontab (crontab -r)'
  if (args.length === 0 || args.every((arg) => arg === '-l' || arg.startsWith('-u'))) return null
  return 'installs a crontab, commands that run later on their own (crontab)'
}

function killsEveryProcess(args: string[]): boolean {
  const afterDashes = args.indexOf('--')
  if (afterDashes >= 0) return args.slice(afterDashes + 1).includes('-1')
  // `kill -1` alone names signal 1; a -1 after a signal (`kill -9 -1`, `kill -s KILL -1`) is "every process".
  const signalValued = args[0] === '-s' || args[0] === '-n' ? 2 : 1
  return args.length > signalValued && args.slice(signalValued).includes('-1')
}

function classifyFind(args: Word[], scope: Scope): Reason {
  for (let i = 0; i < args.length; i++) {
    const text = args[i]!.text
    if (text === '-delete') return 'deletes files (find -delete)'
    if (['-exec', '-execdir', '-ok', '-okdir'].includes(text)) {
      const end = args.findIndex((word, index) => index > i && (word.text === ';' || word.text === '+'))
      const inner = args.slice(i + 1, end < 0 ? args.length : end)
      const reason = classifySimpleCommand({ words: inner, redirects: [] }, { ...scope, nesting: scope.nesting + 1 }, false)
      if (reason) return reason.includes('(') ? reason.replace(/\(([^)]*)\)$/, `(find ${text} $1)`) : reason
      const name = commandName(unwrap(inner).words)
      if (name && !readOnly.has(name)) return `runs ${name} on every file find lists (find ${text} ${name})`
      if (end < 0) break
      i = end
    }
  }
  return null
}

/** `npm exec`, `npm x`, `pnpm dlx`, `yarn exec`: they run any program, as npx does. */
const packageRunner = (args: Word[]): boolean => ['exec', 'x', 'dlx'].includes(args.find((word) => !word.text.startsWith('-'))?.text ?? '')

function classifyPackageRunner(name: string, args: Word[], scope: Scope): Reason {
  const at = args.findIndex((word) => !word.text.startsWith('-'))
  const call = args.findIndex((word) => word.text === '-c' || word.text === '--call')
  if (call >= 0 && args[call + 1]) return classifyLine([args[call + 1]!], `${name} exec -c`, scope)
  const words = skipOptions(args.slice(at + 1), ['-p', '--package', '-w', '--workspace'])
  return words.length > 0 ? classifySimpleCommand({ words, redirects: [] }, { ...scope, nesting: scope.nesting + 1 }, false) : null
}

function classifyPackageManager(name: string, args: string[]): Reason {
  const sub = args.find((arg) => !arg.startsWith('-'))
  if (sub === 'publish' || (name === 'yarn' && sub === 'npm' && args.includes('publish'))) return `publishes a package (${name} publish)`
  const global = args.some((arg) => ['-g', '--global', '--location=global'].includes(arg)) || (name === 'yarn' && sub === 'global')
  const installs = ['install', 'i', 'add', 'uninstall', 'remove', 'rm', 'un', 'update', 'up', 'link', 'global'].includes(sub ?? '')
  return global && installs ? `writes outside the project (${name} global install)` : null
}
