import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach } from 'vitest'

/** A fresh temporary directory per test, removed after it. Call at the top of a describe. */
export function useTempDir(): () => string {
  let dir: string | null = null
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true })
    dir = null
  })
  return () => {
    dir ??= mkdtempSync(join(tmpdir(), 'arbor-store-'))
    return dir
  }
}
