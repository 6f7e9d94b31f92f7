import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach } from 'vitest'

/**
 * What a test started (engines, servers, temp folders), ended after it in reverse order. Call at
 * module scope of a test file: `const { cleanups, tempDir } = useCleanups('arbor-x-')`.
 */
export function useCleanups(prefix: string): { cleanups: Array<() => Promise<void> | void>; tempDir(): string } {
  const cleanups: Array<() => Promise<void> | void> = []
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
  })
  return {
    cleanups,
    tempDir() {
      const dir = mkdtempSync(path.join(os.tmpdir(), prefix))
      cleanups.push(() => rmSync(dir, { recursive: true, force: true }))
      return dir
    },
  }
}
