import type { AgentPacket, ToSupervisor } from '../protocol/messages'

/**
 * The agent process's message pipe to the supervisor. Two transports: Electron's utilityProcess
 * (`process.parentPort`; messages arrive as `event.data`) and Node's fork IPC (`process.send`).
 * Incoming messages are raw: the caller parses them with `toAgentSchema`. Outgoing ones are
 * gathered into packets, a few written together (see `batched`).
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

/**
 * How long an event waits for company before it goes alone: the trace writer's own batch delay
 * (10 ms). At 2 ms a step's assistant message and tool call went alone whenever the tool took
 * longer, two writes and two supervisor wake-ups a step; at 10 ms a quick tool's step is one write
 * (bench/supervisor.ts, same run: supervisor CPU 0.54-0.68 ms a step against 0.67-0.82 at 2 ms).
 */
const eventLingerMs = 10

/**
 * Gathers messages into packets (protocol AgentPacket). Each write wakes the supervisor's
 * process (measured on a busy 2-core machine: a 0.05 ms write took 1 ms of wall time, the writer
 * giving up its core), and a step sent five: its assistant message, tool call, tool result,
 * history message and next model call. A message the agent then waits on (a model call, a spawn,
 * an approval, `done`) or any other that is not an event goes at the end of the current turn of
 * the event loop, with everything queued before it; events alone wait up to `eventLingerMs` for
 * one, so a step whose tools are quick costs one write. Order is kept. An event is late by at
 * most the linger (the trace writer batches for longer); a process killed within it loses those
 * events, as it loses anything it had not yet written.
 */
function batched(write: (packet: AgentPacket) => Promise<void>): Channel['send'] {
  let queue: ToSupervisor[] = []
  let written: Promise<void> | null = null
  let release: (() => void) | null = null
  let linger: NodeJS.Timeout | null = null
  const writeQueued = (): Promise<void> => {
    const messages = queue
    queue = []
    written = null
    return write(messages.length === 1 ? messages[0]! : messages)
  }
  const soon = (): void => {
    if (linger) clearTimeout(linger)
    linger = null
    const go = release
    release = null
    if (go) setImmediate(go)
  }
  return (message) => {
    queue.push(message)
    written ??= new Promise<void>((resolve) => (release = resolve)).then(writeQueued)
    if (message.type !== 'event') soon()
    else if (release && !linger) linger = setTimeout(soon, eventLingerMs)
    return written
  }
}

function parentPortChannel(port: ParentPort): Channel {
  return {
    send: batched((packet) => {
      port.postMessage(packet)
      // postMessage queues the message on the port at once; a turn of the event loop lets it go.
      return new Promise((resolve) => setImmediate(resolve))
    }),
    onMessage(listener) {
      port.on('message', (event) => listener(event.data))
    },
    onDisconnect() {},
  }
}

function forkChannel(host: NodeJS.Process): Channel {
  return {
    send: batched(
      (packet) =>
        new Promise((resolve, reject) => {
          if (!host.send || !host.connected) return reject(new Error('the supervisor channel is closed'))
          host.send(packet, undefined, undefined, (error: Error | null) => (error ? reject(error) : resolve()))
        }),
    ),
    onMessage(listener) {
      host.on('message', (message: unknown) => listener(message))
    },
    onDisconnect(listener) {
      host.on('disconnect', listener)
    },
  }
}
