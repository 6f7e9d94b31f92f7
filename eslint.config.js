import js from '@eslint/js'
import { defineConfig, globalIgnores } from 'eslint/config'
import tseslint from 'typescript-eslint'
import { rendererBoundaryPlugin } from './scripts/eslint-renderer-boundary.js'

// Electron stays at the edge: only the shell may import it. Everything else (agent, supervisor,
// store, api, CLI, serve, renderer) must run in plain Node or a browser.
const electronShellFiles = ['src-main/index.ts', 'src-main/shell/**', 'src-preload/**', 'e2e/electron*.spec.ts']
const electronMessage =
  'Only the Electron shell (src-main/index.ts, src-main/shell/, src-preload/) may import electron; this code must run in plain Node.'
const electronSpecifier = '/^electron(\\u002F.*)?$/'

// Node's globals for plain JavaScript files (TypeScript checks its own).
const nodeGlobals = Object.fromEntries(
  [
    'process',
    'console',
    'Buffer',
    'URL',
    'URLSearchParams',
    'TextEncoder',
    'TextDecoder',
    'AbortController',
    'AbortSignal',
    'setTimeout',
    'clearTimeout',
    'setInterval',
    'clearInterval',
    'setImmediate',
    'clearImmediate',
    'queueMicrotask',
    'structuredClone',
    'fetch',
    'performance',
  ].map((name) => [name, 'readonly']),
)

// The agent process and the supervisor meet only in core/protocol (the messages between them and
// how an agent is started) and in what both read of the job (core/job: profiles, project
// instructions). A blanket rule each way, so it cannot drift as files are added: nothing under
// supervisor/ imports anything from agent/, nothing under agent/ anything from supervisor/, tests
// and their helpers included (a supervisor test forks the agent by its path, it imports none of
// it). The agent may not import the supervisor's provider config either: it names the API key.
const electronImportRule = {
  paths: [{ name: 'electron', message: electronMessage }],
  patterns: [{ group: ['electron/*'], message: electronMessage }],
}
const electronSyntaxRules = [
  { selector: `ImportExpression[source.value=${electronSpecifier}]`, message: electronMessage },
  { selector: `CallExpression[callee.name='require'][arguments.0.value=${electronSpecifier}]`, message: electronMessage },
]
const protocolMessage = 'The agent and the supervisor share only src-main/core/protocol and src-main/core/job; import those instead.'
const keyMessage =
  "An agent process never holds a provider key: the provider config (providers/provider-config, create-provider) is the supervisor's."
const sideBoundary = (files, otherSide, extraPatterns = []) => ({
  files,
  rules: {
    'no-restricted-imports': [
      'error',
      {
        ...electronImportRule,
        patterns: [...electronImportRule.patterns, { regex: `(^|/)${otherSide}(/|$)`, message: protocolMessage }, ...extraPatterns],
      },
    ],
    // A lazy `import()` crosses the seam as surely as a static one.
    'no-restricted-syntax': [
      'error',
      ...electronSyntaxRules,
      { selector: `ImportExpression[source.value=/(^|\\u002F)${otherSide}(\\u002F|$)/]`, message: protocolMessage },
    ],
  },
})
const agentSideBoundary = sideBoundary(['src-main/core/agent/**'], 'supervisor', [
  { regex: '(^|/)providers/(provider-config|create-provider)$', message: keyMessage },
])
const supervisorSideBoundary = sideBoundary(['src-main/core/supervisor/**'], 'agent')

export default defineConfig(
  globalIgnores(['out/', 'node_modules/', 'test-results/', 'playwright-report/', 'e2e/artifacts/', 'coverage/']),
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2023, sourceType: 'module', globals: nodeGlobals },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          caughtErrorsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
          ignoreRestSiblings: true,
        },
      ],
      'no-restricted-imports': ['error', electronImportRule],
      // The import rule does not see `require('electron')` or `import('electron')`.
      'no-restricted-syntax': ['error', ...electronSyntaxRules],
    },
  },
  agentSideBoundary,
  supervisorSideBoundary,
  {
    // The renderer and the preload: one door into core, `@core/…` for its pure modules; no
    // relative way out of their folder, no Node built-ins, no SQLite.
    files: ['src-renderer/**', 'src-preload/**'],
    plugins: { arbor: rendererBoundaryPlugin },
    rules: { 'arbor/renderer-boundary': 'error' },
  },
  {
    files: electronShellFiles,
    rules: { 'no-restricted-imports': 'off', 'no-restricted-syntax': 'off' },
  },
  {
    // Stand-in streams in tests may only throw: `async *stream() { throw … }`.
    files: ['**/*.test.ts', '**/*.test.tsx', 'e2e/**'],
    rules: { 'require-yield': 'off' },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: { ...nodeGlobals, require: 'readonly', module: 'writable', __dirname: 'readonly' },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
)
