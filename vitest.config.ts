import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'

export default defineConfig({
  // The renderer's door into core (electron.vite.config.ts).
  resolve: { alias: { '@core': fileURLToPath(new URL('src-main/core', import.meta.url)) } },
  test: {
    include: ['src-main/**/*.test.ts', 'src-preload/**/*.test.ts', 'src-renderer/**/*.test.ts', 'scripts/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
})
