import { resolve } from 'node:path'
import { build as esbuild } from 'esbuild'
import { defineConfig } from 'electron-vite'
import type { Plugin } from 'vite'
import react from '@vitejs/plugin-react'

/**
 * The agent process (out/main/agent.js) is one self-contained, minified file with its
 * dependencies inside: every agent, hundreds in a job, pays for what it loads. As an entry of
 * the main build it shared chunks with the CLI and resolved zod and re2js from node_modules file
 * by file; bundled alone it starts in about four fifths of the time (bench/spawn.ts).
 */
function agentBundle(): Plugin {
  return {
    name: 'arbor-agent-bundle',
    apply: 'build',
    async closeBundle() {
      await esbuild({
        entryPoints: [resolve(__dirname, 'src-main/core/agent/main.ts')],
        outfile: resolve(__dirname, 'out/main/agent.js'),
        bundle: true,
        minify: true,
        platform: 'node',
        format: 'esm',
        target: 'node20',
        logLevel: 'warning',
      })
    },
  }
}

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
        },
      },
    },
  },
  preload: {
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
    build: {
      outDir: 'out/renderer',
      minify: true,
      rollupOptions: { input: { index: resolve(__dirname, 'src-renderer/index.html') } },
    },
  },
})
