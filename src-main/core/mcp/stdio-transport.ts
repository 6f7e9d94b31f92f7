import { spawn, type ChildProcess } from 'node:child_process'
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'

/** What to run: the program (already wrapped in the sandbox, when there is one), in `cwd`, with `env`. */
export interface StdioCommand {
  file: string
  args: string[]
  cwd: string
  env: NodeJS.ProcessEnv
}

const stderrKept = 2_000

/**
 * An MCP stdio transport (newline-delimited JSON-RPC on stdin/stdout) whose server runs as its own
 * process group, so closing it ends the server and everything the server started (SIGTERM, then
 * SIGKILL). A line that is not JSON-RPC ends the server too: a server that speaks garbage cannot
 * be trusted with the next request, and its pending calls fail at once instead of timing out.
 * `exitNote` says how the process ended (code or signal, its last stderr) for error messages.
 */
export class GroupStdioTransport implements Transport {
  onclose?: () => void
  onerror?: (error: Error) => void
  onmessage?: (message: JSONRPCMessage) => void

  private child: ChildProcess | null = null
  private readonly buffer = new ReadBuffer()
  private stderr = ''
  private exited: Promise<void> = Promise.resolve()
  /** Why the transport ended, when it ended by itself (exit, bad output). */
  exitNote: string | null = null

  constructor(private readonly command: StdioCommand) {}

  get pid(): number | undefined {
    return this.child?.pid
  }

  start(): Promise<void> {
    return new Promise((resolve, reject) => {
      const child = spawn(this.command.file, this.command.args, {
        cwd: this.command.cwd,
        env: this.command.env,
        stdio: ['pipe', 'pipe', 'pipe'],
        detached: true,
        windowsHide: true,
      })
      this.child = child
      this.exited = new Promise((done) => child.once('close', () => done()))
      child.once('error', (error) => {
        this.exitNote ??= `could not start: ${error.message}`
        reject(error)
        this.onerror?.(error)
      })
      child.once('spawn', () => resolve())
      child.once('close', (code, signal) => {
        const tail = this.stderr.trim()
        this.exitNote ??= `exited (${signal ? `signal ${signal}` : `code ${code}`})${tail ? `; its stderr ends: ${tail.slice(-500)}` : ''}`
        this.child = null
        this.onclose?.()
      })
      child.stdout?.on('data', (chunk: Buffer) => this.read(chunk))
      child.stderr?.on('data', (chunk: Buffer) => {
        this.stderr = (this.stderr + chunk.toString('utf8')).slice(-stderrKept)
      })
      child.stdin?.on('error', (error) => this.onerror?.(error))
    })
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      const stdin = this.child?.stdin
      if (!stdin) return reject(new Error('the MCP server is not running'))
      stdin.write(serializeMessage(message), (error) => (error ? reject(error) : resolve()))
    })
  }

  /** Ends the server's process group: SIGTERM, SIGKILL after `graceMs`; resolves once it exited. */
  async close(graceMs = 1_000): Promise<void> {
    const child = this.child
    if (!child?.pid) return
    signalGroup(child.pid, 'SIGTERM')
    const timer = setTimeout(() => signalGroup(child.pid!, 'SIGKILL'), graceMs)
    await this.exited
    clearTimeout(timer)
    // Whatever the server left in its group goes too.
    signalGroup(child.pid, 'SIGKILL')
  }

  /** Ends the group at once, synchronously (Arbor's process is exiting). */
  killNow(): void {
    if (this.child?.pid) signalGroup(this.child.pid, 'SIGKILL')
  }

  private read(chunk: Buffer): void {
    this.buffer.append(chunk)
    for (;;) {
      let message: JSONRPCMessage | null
      try {
        message = this.buffer.readMessage()
      } catch (error) {
        this.exitNote = `sent output that is not JSON-RPC (${error instanceof Error ? error.message.split('\n')[0] : String(error)})`
        this.buffer.clear()
        void this.close(0)
        return
      }
      if (message === null) return
      this.onmessage?.(message)
    }
  }
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal)
  } catch {
    // Gone already.
  }
}
