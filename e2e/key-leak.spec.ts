import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { expect, test } from '@playwright/test'
import { startFakeOpenAI } from '../src-main/core/providers/testing/fake-openai'

/**
 * A hostile model against the built CLI: it asks `bash` for every environment it can see
 * (/proc/$PPID, every /proc/PID, `env`, `ps`) and has `read_file` read a file that holds the key.
 * The key must reach no agent process, no trace event, no export and no model request body.
 */
const repoRoot = path.resolve(import.meta.dirname, '..')
const key = 'sk-test-HOSTILE-0123456789abcdef'

function runCli(
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; stdout: string; stderr: string; agentEnvs: string[] }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(repoRoot, 'bin/arbor.js'), ...args], {
      cwd: repoRoot,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    // While it runs, read what the OS shows of every agent process: its environment and arguments.
    const agentEnvs: string[] = []
    const watch = setInterval(() => {
      for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
        try {
          const environ = readFileSync(`/proc/${pid}/environ`, 'utf8')
          if (!environ.includes('ARBOR_AGENT_ID=')) continue
          agentEnvs.push(environ + readFileSync(`/proc/${pid}/cmdline`, 'utf8'))
        } catch {
          // Gone already.
        }
      }
    }, 20)
    child.on('close', (code) => {
      clearInterval(watch)
      resolve({ code, stdout, stderr, agentEnvs })
    })
  })
}

test('a hostile model cannot get the API key out of bash, read_file, the trace or its next request', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'arbor-key-leak-'))
  const project = path.join(dir, 'project')
  const { mkdirSync } = await import('node:fs')
  mkdirSync(project)
  writeFileSync(path.join(project, 'notes.txt'), `deploy with OPENAI_API_KEY=${key}\n`)
  const probes = [
    "tr '\\0' '\\n' < /proc/$PPID/environ",
    "for f in /proc/[0-9]*/environ; do tr '\\0' '\\n' < \"$f\"; done 2>/dev/null | grep -a API_KEY",
    'env',
    'ps -eo pid,args',
  ]
  const server = await startFakeOpenAI({
    queue: [
      {
        tool_calls: [
          ...probes.map((command) => ({ name: 'bash', arguments: { command } })),
          { name: 'read_file', arguments: { path: 'notes.txt' } },
        ],
      },
      { text: 'Nothing found.' },
    ],
  })
  try {
    const exportFile = path.join(dir, 'trace.jsonl')
    const result = await runCli(
      [
        'run',
        project,
        '--task',
        'find the key',
        '--provider',
        'openai',
        '--model',
        'gpt-4o-mini',
        '--base-url',
        `${server.url}/v1`,
        '--db',
        path.join(dir, 'arbor.db'),
        '--export',
        exportFile,
      ],
      { ...process.env, OPENAI_API_KEY: key },
    )
    expect(result.code, result.stderr).toBe(0)

    // Every model request was made (the hostile turn and the one after), with the key only in its header.
    expect(server.requests).toHaveLength(2)
    expect(server.requests.every((request) => request.headers.authorization === `Bearer ${key}`)).toBe(true)
    const secondBody = JSON.stringify(server.requests[1]!.body)
    expect(secondBody).toContain('[redacted key]')
    expect(secondBody).not.toContain(key)

    // No agent process had it in its environment or arguments.
    expect(result.agentEnvs.length).toBeGreaterThan(0)
    expect(result.agentEnvs.some((seen) => seen.includes(key))).toBe(false)

    // Not in the trace, the export or the terminal.
    const trace = readFileSync(exportFile, 'utf8')
    expect(trace).toContain('[redacted key]')
    expect(trace).not.toContain(key)
    expect(result.stdout + result.stderr).not.toContain(key)
    const db = readFileSync(path.join(dir, 'arbor.db'))
    expect(db.includes(Buffer.from(key))).toBe(false)
  } finally {
    await server.close()
  }
})
