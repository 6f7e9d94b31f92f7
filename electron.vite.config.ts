import { spawnSync } from 'node:child_process'
import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { build as esbuild, type BuildOptions, type Plugin as EsbuildPlugin } from 'esbuild'
import { defineConfig } from 'electron-vite'
import type { Plugin } from 'vite'
import react from '@vitejs/plugin-react'
import { agentSnapshotFile } from './src-main/cli/agent-entry'
import { codeCacheSourceFile, wrapCommonJs } from './src-main/core/protocol/code-cache'

/** zod's messages in English only: an agent never switches locale, and the others are over half of zod. */
const englishOnlyZod: EsbuildPlugin = {
  name: 'arbor-english-only-zod',
  setup(build) {
    build.onLoad({ filter: /[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, (args) => ({
      contents: 'export { default as en } from "./en.js"',
      loader: 'js',
      resolveDir: dirname(args.path),
    }))
  },
}

/**
 * The agent process (out/main/agent.js and its chunks in out/main/agent-chunks) is bundled alone,
 * minified, with its dependencies inside: every agent, hundreds in a job, pays for what it loads.
 * As an entry of the main build it shared chunks with the CLI and resolved zod and re2js from
 * node_modules file by file; bundled alone it starts in about four fifths of the time
 * (bench/spawn.ts). What only a tool call needs (re2js, the risk classifier, the sandbox) is a
 * chunk loaded by that call, and zod's error messages in other languages are left out.
 *
 * The same entry is also built as one CommonJS file, agent.cjs. Forked by plain Node (CLI,
 * serve), an agent starts from a startup snapshot (`node --build-snapshot`) made here of it: zod,
 * the schemas and the loop are then in the heap it starts with, warmed up. A snapshot runs only
 * on the Node that made it, so its name carries the version (src-main/cli/agent-entry.ts).
 * Electron's utility processes start agent-cached.cjs, which runs agent.cjs from a V8 code cache
 * kept in Arbor's data folder (src-main/core/agent/code-cache-entry.ts); it compiles agent.cjs as
 * written here already wrapped as Node wraps a module, so that an agent holds one copy of it.
 */
function agentBundle(): Plugin {
  const entry = resolve(__dirname, 'src-main/core/agent/main.ts')
  const codeCacheEntry = resolve(__dirname, 'src-main/core/agent/code-cache-entry.ts')
  const outDir = resolve(__dirname, 'out/main')
  const common: BuildOptions = {
    bundle: true,
    minify: true,
    platform: 'node',
    target: 'node20',
    logLevel: 'warning',
    plugins: [englishOnlyZod],
  }
  return {
    name: 'arbor-agent-bundle',
    apply: 'build',
    async closeBundle() {
      await esbuild({
        ...common,
        entryPoints: { agent: entry },
        outdir: outDir,
        format: 'esm',
        splitting: true,
        chunkNames: 'agent-chunks/[name]-[hash]',
      })
      const oneFile = resolve(outDir, 'agent.cjs')
      await esbuild({ ...common, entryPoints: [entry], outfile: oneFile, format: 'cjs' })
      writeFileSync(resolve(outDir, codeCacheSourceFile), wrapCommonJs(readFileSync(oneFile, 'utf8')))
      await esbuild({ ...common, entryPoints: [codeCacheEntry], outfile: resolve(outDir, 'agent-cached.cjs'), format: 'cjs' })
      const blob = resolve(outDir, agentSnapshotFile())
      const built = spawnSync(process.execPath, ['--snapshot-blob', blob, '--build-snapshot', oneFile], { encoding: 'utf8' })
      if (built.status !== 0) {
        rmSync(blob, { force: true })
        console.warn(`arbor: no agent startup snapshot (agents start from agent.js): ${built.stderr || built.error?.message}`)
      }
    },
  }
}

/**
 * The renderer's and the preload's one door into core: `@core/…` is src-main/core, for the pure
 * modules eslint.config.js allows them (the API contract, the trace model, the job form, pricing).
 * The same alias is in the tsconfigs' `paths` and vitest.config.ts.
 */
const coreAlias = { '@core': resolve(__dirname, 'src-main/core') }

// Three builds: the Electron main process (plus the CLI entry and the agent bundle, which run
// in plain Node too), the sandboxed preload (CommonJS), and the React renderer.
export default defineConfig({
  main: {
    plugins: [agentBundle()],
    build: {
      outDir: 'out/main',
      rollupOptions: {
        input: {
          index: resolve(__dirname, 'src-main/index.ts'),
          cli: resolve(__dirname, 'src-main/cli/main.ts'),
          // The trace writer's thread (store/writer-thread.ts), for the app and `serve`.
          'writer-worker': resolve(__dirname, 'src-main/core/store/writer-worker.ts'),
        },
      },
    },
  },
  preload: {
    resolve: { alias: coreAlias },
    build: {
      outDir: 'out/preload',
      rollupOptions: {
        input: { index: resolve(__dirname, 'src-preload/index.ts') },
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: {
    root: 'src-renderer',
    plugins: [react()],
    resolve: { alias: coreAlias },
    build: {
      outDir: 'out/renderer',
      minify: true,
      rollupOptions: { input: { index: resolve(__dirname, 'src-renderer/index.html') } },
    },
  },
})
