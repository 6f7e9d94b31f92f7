import { execFileSync } from 'node:child_process'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { createServer, type Server } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach } from 'vitest'

/** A fresh project folder per test, beside an `outside` folder holding a secret the tools must not reach. */
export function useSandbox(prefix: string, parent = tmpdir()): { project: () => string; outside: () => string; base: () => string } {
  let base = ''
  beforeEach(async () => {
    base = await mkdtemp(join(parent, prefix))
    await mkdir(join(base, 'project'))
    await mkdir(join(base, 'outside'))
    await writeFile(join(base, 'outside', 'secret.txt'), 'top secret\n')
  })
  afterEach(async () => {
    await rm(base, { recursive: true, force: true })
  })
  return { project: () => join(base, 'project'), outside: () => join(base, 'outside'), base: () => base }
}

/**
 * A folder outside /tmp for tests that write outside the project: the OS sandbox gives commands
 * a private /tmp, where a write "outside" would succeed without reaching the host.
 */
export const hostFolder = (): string => (process.platform === 'linux' ? '/var/tmp' : tmpdir())

/** Host processes (not zombies) whose command line contains `marker`: what a command left running. */
export function processesWith(marker: string): number[] {
  const listing = execFileSync('ps', ['-A', '-ww', '-o', 'pid=,stat=,args='], { encoding: 'utf8' })
  return listing
    .split('\n')
    .map((line) => /^\s*(\d+)\s+(\S+)\s+(.*)$/.exec(line))
    .filter((match): match is RegExpExecArray => match !== null && !match[2]!.startsWith('Z') && match[3]!.includes(marker))
    .map((match) => Number(match[1]))
    .filter((pid) => pid !== process.pid)
}

/** Waits until no host process carries `marker`; the pids still there when the time is up. */
export async function waitUntilNoneWith(marker: string, withinMs = 3_000): Promise<number[]> {
  const until = Date.now() + withinMs
  for (;;) {
    const left = processesWith(marker)
    if (left.length === 0 || Date.now() > until) return left
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/** A marker no other process carries: `sleep ${marker}` sleeps about 100 s. */
export const sleepMarker = (): string => `100.${String(Math.floor(Math.random() * 1e9)).padStart(9, '1')}`

/** A TCP server on 127.0.0.1 that counts its connections, as a local service a command might reach. */
export async function startLocalServer(): Promise<{ port: number; connections: () => number; close: () => Promise<void> }> {
  let connections = 0
  const server: Server = createServer((socket) => {
    connections += 1
    socket.end('hello from the host\n')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  if (address === null || typeof address === 'string') throw new Error('no port')
  return {
    port: address.port,
    connections: () => connections,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  }
}
