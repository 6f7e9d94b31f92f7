import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['src-main/**/*.test.ts', 'src-preload/**/*.test.ts', 'src-renderer/**/*.test.ts', 'scripts/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
})
