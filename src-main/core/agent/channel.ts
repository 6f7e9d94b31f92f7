import type { ToSupervisor } from '../protocol/messages'

/**
 * The agent process's message pipe to the supervisor. Two transports: Electron's utilityProcess
 * (`process.parentPort`; messages arrive as `event.data`) and Node's fork IPC (`process.send`).
 * Incoming messages are raw: the caller parses them with `toAgentSchema`.
 */
export interface Channel {
  /** Resolves once the message has been handed to the transport. */
  send(message: ToSupervisor): Promise<void>
  onMessage(listener: (message: unknown) => void): void
  /** The supervisor went away (fork IPC only: a utility process dies with its parent). */
  onDisconnect(listener: () => void): void
}

/** Electron's `process.parentPort` in a utility process, typed here so nothing imports electron. */
interface ParentPort {
  on(event: 'message', listener: (event: { data: unknown }) => void): void
  postMessage(message: unknown): void
}

export function connectToSupervisor(host: NodeJS.Process = process): Channel | undefined {
  const parentPort = (host as NodeJS.Process & { parentPort?: ParentPort }).parentPort
  if (parentPort) return parentPortChannel(parentPort)
  if (host.send) return forkChannel(host)
  return undefined
}

function parentPortChannel(port: ParentPort): Channel {
  return {
    send(message) {
      port.postMessage(message)
      // postMessage queues the message on the port at once; a turn of the event loop lets it go.
      return new Promise((resolve) => setImmediate(resolve))
    },
    onMessage(listener) {
      port.on('message', (event) => listener(event.data))
    },
    onDisconnect() {},
  }
}

function forkChannel(host: NodeJS.Process): Channel {
  return {
    send(message) {
      return new Promise((resolve, reject) => {
        if (!host.send || !host.connected) return reject(new Error('the supervisor channel is closed'))
        host.send(message, undefined, undefined, (error: Error | null) => (error ? reject(error) : resolve()))
      })
    },
    onMessage(listener) {
      host.on('message', (message: unknown) => listener(message))
    },
    onDisconnect(listener) {
      host.on('disconnect', listener)
    },
  }
}
