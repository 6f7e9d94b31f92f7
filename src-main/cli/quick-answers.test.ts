import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'

/**
 * `arbor --help`, `--version` and a usage error answer without loading any command's module or
 * zod: the real CLI from source, with a resolve hook that fails any such import
 * (testing/refuse-commands.mjs). bench/cli.ts times the built CLI doing the same.
 */
const cli = fileURLToPath(new URL('./main.ts', import.meta.url))
const refuse = fileURLToPath(new URL('./testing/refuse-commands.mjs', import.meta.url))
const version = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version

async function arbor(args: string[], hook = true): Promise<{ code: number; stdout: string; stderr: string }> {
  // Node 26 deprecates module.register(), which tsx and the hook call: that warning is the harness's, not the CLI's.
  const imports = ['--disable-warning=DEP0205', '--import', 'tsx', ...(hook ? ['--import', refuse] : [])]
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [...imports, cli, ...args], { encoding: 'utf8' })
    return { code: 0, stdout, stderr }
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string }
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr }
  }
}

describe('the CLI answers at once', () => {
  it('prints its version from package.json', async () => {
    expect(await arbor(['--version'])).toEqual({ code: 0, stdout: `arbor ${version}\n`, stderr: '' })
  })

  it('prints the usage for --help and after a usage error, loading no command', async () => {
    const help = await arbor(['--help'])
    expect(help.code).toBe(0)
    expect(help.stdout).toContain('Usage:\n  arbor demo')
    const mistake = await arbor(['run', '--no-such-flag'])
    expect(mistake.code).toBe(2)
    expect(mistake.stderr).toContain("arbor: Unknown option '--no-such-flag'")
    expect(mistake.stderr).toContain('Usage:')
  })

  it('loads the command it runs (the hook does refuse a command)', async () => {
    const refused = await arbor(['export'])
    expect(refused.code).toBe(1)
    expect(refused.stderr).toMatch(/refused to load .*cli\/commands\/export\.ts/)
    expect((await arbor(['export'], false)).stderr).toContain('arbor: export needs --db FILE')
  })
})
