import { mkdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { useCleanups } from '../testing/cleanups'
import { handlerEngine } from './testing'

const { cleanups, tempDir } = useCleanups('arbor-project-handlers-')

describe('openProject', () => {
  // The dispatcher's fuzz found these: statSync throws for more than a missing path.
  it('refuses a path that cannot be a folder as a bad request, never an internal error, and opens a real one', async () => {
    const dir = tempDir()
    const project = path.join(dir, 'shop')
    mkdirSync(project)
    writeFileSync(path.join(dir, 'notes.txt'), 'a file\n')
    const rig = handlerEngine({ dbFile: path.join(dir, 'arbor.db'), cleanups })
    const hostile = [`${dir}/a\u0000b`, path.join(dir, 'x'.repeat(300)), path.join(dir, 'notes.txt', 'inside'), path.join(dir, 'missing')]
    for (const folder of hostile) {
      const reply = await rig.dispatch('openProject', { path: folder })
      expect(reply, folder).toMatchObject({ ok: false, error: { code: 'invalid_request' } })
      expect(JSON.stringify(reply)).toContain('not a folder')
    }
    expect(await rig.dispatch('openProject', { path: project })).toMatchObject({
      ok: true,
      value: { project: { path: project, name: 'shop' } },
    })
  })
})
