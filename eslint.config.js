import js from '@eslint/js'
import { defineConfig, globalIgnores } from 'eslint/config'
import tseslint from 'typescript-eslint'

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

// The agent process and the supervisor meet only in core/protocol (the messages between them).
// An agent imports nothing of the supervisor; the supervisor imports the job's definitions from
// agent/ (profiles, project instructions) but none of what runs inside an agent process.
const electronImportRule = {
  paths: [{ name: 'electron', message: electronMessage }],
  patterns: [{ group: ['electron/*'], message: electronMessage }],
}
const protocolMessage = 'The agent and the supervisor share only src-main/core/protocol; import the protocol instead.'
const agentSideBoundary = {
  files: ['src-main/core/agent/**/*.ts'],
  rules: {
    'no-restricted-imports': [
      'error',
      {
        ...electronImportRule,
        patterns: [...electronImportRule.patterns, { group: ['**/supervisor/*', '**/supervisor'], message: protocolMessage }],
      },
    ],
  },
}
const supervisorSideBoundary = {
  files: ['src-main/core/supervisor/**/*.ts'],
  ignores: ['**/*.test.ts', 'src-main/core/supervisor/testing.ts'],
  rules: {
    'no-restricted-imports': [
      'error',
      {
        ...electronImportRule,
        patterns: [
          ...electronImportRule.patterns,
          {
            regex:
              '/agent/(loop|main|channel|supervisor-link|remote-model|compaction|run-stats|stop-conditions|explore-contract|testing|tools(/.*)?|risk(/.*)?)$',
            message: protocolMessage,
          },
        ],
      },
    ],
  },
}

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
      'no-restricted-syntax': [
        'error',
        { selector: `ImportExpression[source.value=${electronSpecifier}]`, message: electronMessage },
        {
          selector: `CallExpression[callee.name='require'][arguments.0.value=${electronSpecifier}]`,
          message: electronMessage,
        },
      ],
    },
  },
  agentSideBoundary,
  supervisorSideBoundary,
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
