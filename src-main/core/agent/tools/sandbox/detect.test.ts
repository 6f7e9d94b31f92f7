import { describe, expect, it } from 'vitest'
import { detectSandbox } from './detect'

describe('detectSandbox', () => {
  it.skipIf(process.platform !== 'linux')('finds bubblewrap here and can start it', async () => {
    const found = await detectSandbox()
    expect(found).toMatchObject({ available: true, name: 'bubblewrap' })
  })

  it('says how to install bubblewrap when it is missing', async () => {
    expect(await detectSandbox({ platform: 'linux', bwrapPath: '/nonexistent/bwrap' })).toEqual({
      available: false,
      reason:
        'bubblewrap is not installed (no /nonexistent/bwrap): install it (apt-get install bubblewrap, or dnf install bubblewrap), or run the job without the sandbox (the job\'s "no sandbox" setting)',
    })
  })

  it.skipIf(process.platform === 'win32')('says how to allow namespaces when bubblewrap cannot start', async () => {
    // A binary that exists and fails as bwrap does when the kernel refuses it a namespace.
    const found = await detectSandbox({ platform: 'linux', bwrapPath: '/bin/false' })
    expect(found.available).toBe(false)
    expect(!found.available && found.reason).toBe(
      'bubblewrap cannot create its namespaces here (it exited with code 1): allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1; on Ubuntu 24.04 also sysctl kernel.apparmor_restrict_unprivileged_userns=0), or run Arbor where namespaces are allowed, or run the job without the sandbox (the job\'s "no sandbox" setting)',
    )
  })

  it('asks once per binary and keeps the answer', async () => {
    const options = { platform: 'linux' as const, bwrapPath: '/nonexistent/other-bwrap' }
    expect(detectSandbox(options)).toBe(detectSandbox(options))
  })

  it('has no sandbox for other systems, and says what to do', async () => {
    expect(await detectSandbox({ platform: 'win32' })).toEqual({
      available: false,
      reason: 'Arbor has no OS sandbox for win32: run the job without the sandbox (the job\'s "no sandbox" setting)',
    })
  })
})
