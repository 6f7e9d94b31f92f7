import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach } from 'vitest'

/** A fresh project folder per test, beside an `outside` folder holding a secret the tools must not reach. */
export function useSandbox(prefix: string): { project: () => string; outside: () => string } {
  let base = ''
  beforeEach(async () => {
    base = await mkdtemp(join(tmpdir(), prefix))
    await mkdir(join(base, 'project'))
    await mkdir(join(base, 'outside'))
    await writeFile(join(base, 'outside', 'secret.txt'), 'top secret\n')
  })
  afterEach(async () => {
    await rm(base, { recursive: true, force: true })
  })
  return { project: () => join(base, 'project'), outside: () => join(base, 'outside') }
}
