/**
 * The git rules of the risk classifier (classifier.ts lists them all). Besides what throws work
 * away or leaves the machine, git can run any command it is configured to: an alias (`!sh …`),
 * core.pager, core.sshCommand, core.fsmonitor, hooks, an external diff. So configuration given on
 * the command line is judged by its key, and a subcommand git does not build in is taken for an
 * alias (git runs built-ins first, then git-NAME programs, then aliases).
 */
import { sliceWord, type Word } from './words'

type Reason = string | null

/** What the classifier judges for git: a path written, a command line or a command git runs. */
export interface GitJudge {
  write(word: Word, via: string): Reason
  /** Like write, but a path inside .git is fine (`--git-dir=.git`). */
  outside(word: Word, via: string): Reason
  script(words: Word[], via: string): Reason
  command(words: Word[], via: string): Reason
}

/** git's own subcommands (git --list-cmds=builtins,main, up to 2.50): never an alias. */
const builtins = new Set(
  `add am annotate apply archive backfill bisect blame branch bugreport bundle cat-file check-attr check-ignore check-mailmap
  check-ref-format checkout checkout-index cherry cherry-pick citool clean clone column commit commit-graph commit-tree config
  count-objects credential credential-cache credential-store daemon describe diagnose diff diff-files diff-index diff-pairs diff-tree
  difftool fast-export fast-import fetch fetch-pack filter-branch fmt-merge-msg for-each-ref for-each-repo format-patch fsck
  fsck-objects fsmonitor--daemon gc get-tar-commit-id grep gui hash-object help hook http-backend http-fetch http-push imap-send
  index-pack init init-db instaweb interpret-trailers last-modified log ls-files ls-remote ls-tree mailinfo mailsplit maintenance
  merge merge-base merge-file merge-index merge-octopus merge-one-file merge-ours merge-recursive merge-resolve merge-subtree
  merge-tree mergetool mktag mktree multi-pack-index mv name-rev notes pack-objects pack-redundant pack-refs patch-id prune
  prune-packed pull push quiltimport range-diff read-tree rebase receive-pack reflog refs remote remote-ext remote-fd repack
  replace replay repo request-pull rerere reset restore rev-list rev-parse revert rm send-email send-pack sh-i18n--envsubst shell
  shortlog show show-branch show-index show-ref sparse-checkout stage stash status stripspace submodule subtree switch
  symbolic-ref tag unpack-file unpack-objects update-index update-ref update-server-info upload-archive upload-pack var
  verify-commit verify-pack verify-tag version web--browse whatchanged worktree write-tree`.split(/\s+/),
)

/** Built-ins that are risky whatever their arguments. */
const riskySubcommands: Record<string, string> = {
  credential: 'reads or stores saved credentials (git credential)',
  'credential-store': 'reads or stores saved credentials (git credential-store)',
  'credential-cache': 'reads or stores saved credentials (git credential-cache)',
  daemon: 'serves repositories over the network (git daemon)',
  instaweb: 'serves the repository over the network (git instaweb)',
  'http-backend': 'serves repositories over the network (git http-backend)',
  'send-email': 'sends email (git send-email)',
  'imap-send': 'uploads to a mail server (git imap-send)',
  'remote-ext': 'runs a command as a git remote (git remote-ext)',
  'remote-fd': 'talks to a remote through file descriptors (git remote-fd)',
  shell: 'runs the restricted git login shell (git shell)',
  'web--browse': 'opens a browser (git web--browse)',
  'for-each-repo': 'runs a git command in every repository a config key lists (git for-each-repo)',
  'filter-branch': 'rewrites history (git filter-branch)',
  'filter-repo': 'rewrites history (git filter-repo)',
}

/** Configuration keys that change only how git shows or records things; any other may run a command or move data. */
const harmlessKeys = [
  /^user\.(name|email|signingkey)$/,
  /^(color|advice|column|i18n)\./,
  /^status\.[a-z]+$/,
  /^log\.[a-z]+$/,
  /^init\.defaultbranch$/,
  /^(commit|tag)\.gpgsign$/,
  /^format\.pretty$/,
  /^pull\.(rebase|ff)$/,
  /^push\.(default|autosetupremote)$/,
  /^merge\.(conflictstyle|ff|stat)$/,
  /^rebase\.(autosquash|autostash|updaterefs|stat)$/,
  /^fetch\.(prune|prunetags|parallel)$/,
  /^diff\.(renames|renamelimit|algorithm|colormoved|noprefix|mnemonicprefix|relative|context|interhunkcontext|indentheuristic|statgraphwidth|suppressblankempty)$/,
  /^(gc\.auto|maintenance\.auto|help\.autocorrect|pager\.[a-z-]+|branch\.sort|tag\.sort|blame\.date)$/,
  /^grep\.(linenumber|extendedregexp|patterntype|column)$/,
]

/** Why setting `key` (from `-c key=value`, `git config key value`, `clone --config`) is risky, or null. */
export function configKeyReason(key: Word, via: string): Reason {
  if (key.dynamicAt >= 0 || key.globAt >= 0) return `sets git configuration known only when the command runs (${via} ${key.text})`
  const name = key.text.split('=')[0]!.toLowerCase()
  // pager.<command> = false/true is harmless, a command line is not.
  if (name.startsWith('pager.') && !/^(true|false|yes|no|on|off|0|1)?$/i.test(key.text.slice(name.length + 1))) {
    return `sets a git pager command (${via} ${key.text})`
  }
  if (harmlessKeys.some((pattern) => pattern.test(name))) return null
  if (name.startsWith('alias.')) return `defines a git alias, which can run any command (${via} ${key.text})`
  if (name.startsWith('core.'))
    return `sets git core configuration, which can run commands (core.pager, core.sshCommand, core.fsmonitor, core.hooksPath) (${via} ${key.text})`
  return `sets git configuration that may run commands or change what git reads and writes (${via} ${key.text})`
}

/** Global options before the subcommand that take the next word as their value. */
const globalValued = new Set(['-C', '-c', '--git-dir', '--work-tree', '--namespace', '--super-prefix', '--attr-source', '--config-env'])

export function classifyGit(args: Word[], judge: GitJudge): Reason {
  let i = 0
  while (i < args.length && args[i]!.text.startsWith('-')) {
    const text = args[i]!.text
    if (text === '-c') {
      const reason = args[i + 1] ? configKeyReason(args[i + 1]!, 'git -c') : null
      if (reason) return reason
    }
    if (text === '--config-env' || text.startsWith('--config-env='))
      return `sets git configuration from an environment variable (git ${text})`
    if (text.startsWith('--exec-path=')) return `runs git's helper programs from another folder (git ${text})`
    // Another repository's config and hooks can run commands; another work tree is written by checkout and reset.
    const folderFlag = ['--git-dir', '--work-tree'].find((flag) => text === flag || text.startsWith(`${flag}=`))
    const folder = folderFlag && (text === folderFlag ? args[i + 1] : sliceWord(args[i]!, folderFlag.length + 1))
    if (folderFlag && folder) {
      const reason = judge.outside(folder, `git ${folderFlag}`)
      if (reason) return reason
    }
    i += globalValued.has(text) ? 2 : 1
  }
  const subWord = args[i]
  if (!subWord) return null
  const sub = subWord.text
  if (subWord.dynamicAt >= 0 || subWord.globAt >= 0) return `the git subcommand is computed when the command runs (git ${subWord.source})`
  if (!builtins.has(sub)) return `runs a git alias or an external git command, which can run anything (git ${sub})`
  if (riskySubcommands[sub]) return riskySubcommands[sub]!
  const restWords = args.slice(i + 1)
  const rest = restWords.map((word) => word.text)
  const has = (...flags: string[]): boolean =>
    rest.some((arg) => flags.includes(arg) || flags.some((flag) => flag.startsWith('--') && arg.startsWith(`${flag}=`)))
  const hasShort = (letter: string): boolean => rest.some((arg) => /^-[a-zA-Z]+$/.test(arg) && arg.includes(letter))
  /** The values of an option: `--opt VALUE`, `--opt=VALUE`, or `-o VALUE` for a short one. */
  const values = (...flags: string[]): Word[] =>
    restWords.flatMap((word, index) => {
      if (flags.includes(word.text) && restWords[index + 1]) return [restWords[index + 1]!]
      const long = flags.find((flag) => flag.startsWith('--') && word.text.startsWith(`${flag}=`))
      return long ? [sliceWord(word, long.length + 1)] : []
    })
  const firstReason = (words: Word[], judgeOne: (word: Word) => Reason): Reason => {
    for (const word of words) {
      const reason = judgeOne(word)
      if (reason) return reason
    }
    return null
  }
  const writes = (via: string, ...flags: string[]): Reason => firstReason(values(...flags), (word) => judge.write(word, via))

  switch (sub) {
    case 'push': {
      if (has('--receive-pack', '--exec')) return 'runs a command given on the command line on the remote (git push --receive-pack)'
      if (has('--delete') || hasShort('d') || rest.some((arg) => arg.startsWith(':') && arg.length > 1)) {
        return 'pushes with git, deleting a remote branch (git push --delete)'
      }
      const forced =
        has('--force', '--force-with-lease', '--force-if-includes', '--mirror') ||
        hasShort('f') ||
        rest.some((arg) => arg.startsWith('+') && arg.length > 1)
      return forced ? 'force-pushes with git (git push --force)' : 'pushes with git (git push)'
    }
    case 'fetch':
    case 'pull':
    case 'ls-remote':
    case 'archive':
      if (has('--upload-pack', '--exec') || (sub === 'ls-remote' && rest.includes('-u')))
        return `runs a command given on the command line as the remote's git (git ${sub} --upload-pack)`
      return sub === 'archive' ? writes('git archive -o', '-o', '--output') : null
    case 'clone': {
      if (has('--upload-pack') || rest.includes('-u'))
        return "runs a command given on the command line as the remote's git (git clone --upload-pack)"
      if (has('--template')) return 'installs hooks from a template folder, which run during the clone (git clone --template)'
      const config = firstReason(values('-c', '--config'), (word) => configKeyReason(word, 'git clone -c'))
      if (config) return config
      const positional = positionals(restWords, [
        '-c',
        '--config',
        '-b',
        '--branch',
        '-o',
        '--origin',
        '--depth',
        '--reference',
        '--separate-git-dir',
        '-j',
        '--jobs',
        '--filter',
      ])
      return positional.length >= 2 ? judge.write(positional[1]!, 'git clone') : null
    }
    case 'init': {
      if (has('--template')) return 'installs hooks from a template folder (git init --template)'
      const folder = positionals(restWords, [
        '--separate-git-dir',
        '-b',
        '--initial-branch',
        '--object-format',
        '--ref-format',
        '--shared',
      ])[0]
      return (folder ? judge.write(folder, 'git init') : null) ?? writes('git init --separate-git-dir', '--separate-git-dir')
    }
    case 'config':
      return classifyConfig(restWords, judge)
    case 'worktree':
      return rest[0] === 'add'
        ? firstReason(positionals(restWords.slice(1), ['-b', '-B', '--reason', '--orphan']).slice(0, 1), (word) =>
            judge.write(word, 'git worktree add'),
          )
        : null
    case 'bundle':
      return rest[0] === 'create' && restWords[1]
        ? judge.write(restWords.find((word, index) => index > 0 && !word.text.startsWith('-')) ?? restWords[1], 'git bundle create')
        : null
    case 'submodule':
      return rest.includes('foreach') ? 'runs a command in every submodule (git submodule foreach)' : null
    case 'hook':
      return rest[0] === 'run' ? 'runs a git hook, a program from .git/hooks (git hook run)' : null
    case 'rebase':
      return firstReason(values('-x', '--exec'), (word) => judge.script([word], 'git rebase --exec'))
    case 'bisect':
      return rest[0] === 'run' ? judge.command(restWords.slice(1), 'git bisect run') : null
    case 'difftool':
    case 'mergetool':
      return has('-x', '--extcmd') ? `runs a command given on the command line on each file (git ${sub} --extcmd)` : null
    case 'grep':
      return has('-O', '--open-files-in-pager') || rest.some((arg) => arg.startsWith('-O') && arg.length > 2)
        ? 'opens the files in a program given on the command line (git grep -O)'
        : null
    case 'log':
    case 'show':
    case 'diff':
    case 'diff-tree':
    case 'diff-files':
    case 'diff-index':
    case 'range-diff':
    case 'whatchanged':
      return writes(`git ${sub} --output`, '--output')
    case 'checkout-index':
      return writes('git checkout-index --prefix', '--prefix')
    case 'apply':
      return has('--unsafe-paths') ? 'applies a patch to paths outside the repository (git apply --unsafe-paths)' : null
    case 'format-patch':
      return writes('git format-patch -o', '-o', '--output-directory', '--output')
    case 'clean':
      return has('-n', '--dry-run') || hasShort('n') ? null : 'deletes untracked files (git clean)'
    case 'rm':
      return has('--cached') ? null : 'deletes files (git rm)'
    case 'reset':
      return has('--hard', '--merge', '--keep') ? 'discards uncommitted changes (git reset --hard)' : null
    case 'checkout':
      return has('-f', '--force', '--', '.') || hasShort('f') ? 'discards uncommitted changes (git checkout)' : null
    case 'switch':
      return has('-f', '--force', '--discard-changes') ? 'discards uncommitted changes (git switch --discard-changes)' : null
    case 'restore':
      return has('--staged', '-S') && !has('--worktree', '-W') ? null : 'discards uncommitted changes (git restore)'
    case 'stash':
      return rest[0] === 'drop' || rest[0] === 'clear' ? `drops stashed changes (git stash ${rest[0]})` : null
    case 'branch':
      return has('-D') || (has('-d', '--delete') && has('-f', '--force')) ? 'deletes a branch (git branch -D)' : null
    case 'prune':
      return has('-n', '--dry-run') ? null : 'deletes unreachable commits (git prune)'
    case 'gc':
      return rest.some((arg) => /^--prune=(now|all)$/.test(arg)) ? 'deletes unreachable commits (git gc --prune=now)' : null
    case 'reflog':
      return rest[0] === 'expire' || rest[0] === 'delete'
        ? `deletes reflog entries, the way back to lost commits (git reflog ${rest[0]})`
        : null
    default:
      return null
  }
}

/** Words that are not options or option values. */
function positionals(words: Word[], valued: string[]): Word[] {
  const result: Word[] = []
  let optionsDone = false
  for (let i = 0; i < words.length; i++) {
    const text = words[i]!.text
    if (!optionsDone && text === '--') optionsDone = true
    else if (!optionsDone && text.startsWith('-') && text !== '-') i += valued.includes(text) ? 1 : 0
    else result.push(words[i]!)
  }
  return result
}

/** Options of git config that only read. */
const configReads = new Set([
  '--get',
  '--get-all',
  '--get-regexp',
  '--get-urlmatch',
  '--get-color',
  '--get-colorbool',
  '-l',
  '--list',
  'get',
  'list',
])

/** `git config`: setting a key is judged by the key; writing outside the repository or opening an editor is risky. */
function classifyConfig(words: Word[], judge: GitJudge): Reason {
  const text = words.map((word) => word.text)
  if (text.some((arg) => configReads.has(arg))) return null
  if (text.some((arg) => arg === '-e' || arg === '--edit' || arg === 'edit'))
    return 'opens git configuration in an editor (git config --edit)'
  const file =
    words.find((_, index) => index > 0 && ['-f', '--file'].includes(text[index - 1]!)) ??
    words.filter((word) => word.text.startsWith('--file=')).map((word) => sliceWord(word, '--file='.length))[0]
  const keys = positionals(words, ['-f', '--file', '--blob', '--type', '--default', '--comment', '--value']).filter(
    (word) => !['set', 'unset', 'rename-section', 'remove-section'].includes(word.text),
  )
  if (keys.length === 0) return null
  const removes = text.some((arg) => ['--unset', '--unset-all', '--remove-section', 'unset', 'remove-section'].includes(arg))
  const setting = !removes && (keys.length >= 2 || text.some((arg) => ['--add', '--replace-all', 'set'].includes(arg)))
  if (text.some((arg) => arg === '--rename-section' || arg === 'rename-section'))
    return 'renames a git configuration section (git config --rename-section)'
  if (!setting && !removes) return null
  if (text.includes('--global') || text.includes('--system'))
    return `writes git configuration outside the project (git config ${text.includes('--global') ? '--global' : '--system'})`
  if (file) {
    const reason = judge.write(file, 'git config --file')
    if (reason) return reason
  }
  return setting ? configKeyReason(keys[0]!, 'git config') : null
}
