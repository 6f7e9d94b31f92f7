/** `npm run bench`: every benchmark, each printing ratios against its own baseline in the same run. */
import { spawnSync } from 'node:child_process'
import { resolve } from 'node:path'

for (const bench of ['store.ts', 'spawn.ts', 'graph.ts', 'load.ts']) {
  console.log(`\n=== bench/${bench}`)
  const result = spawnSync(process.execPath, ['--import', 'tsx', resolve(import.meta.dirname, bench)], { stdio: 'inherit' })
  if (result.status !== 0) process.exitCode = 1
}
