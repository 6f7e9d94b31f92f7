import { afterEach, describe, expect, it } from 'vitest'
import { layoutOptions } from './flow-elements'
import type { TreeLayout } from './layout'
import { runLayoutRequest, type LayoutInput, type LayoutRequest, type LayoutResponse } from './layout-request'
import { LayoutScheduler, type LayoutPort } from './layout-scheduler'

/** A tree of `count` drawn nodes, ten children a parent, breadth first. */
function input(count: number, tag = 'n'): LayoutInput {
  const children = new Map<string, string[]>()
  const ids = Array.from({ length: count - 1 }, (_, index) => `${tag}${index + 1}`)
  for (let start = 0; start < ids.length; start += 10)
    children.set(start === 0 ? `${tag}0` : ids[start - 10]!, ids.slice(start, start + 10))
  return { roots: [`${tag}0`], children, rootDepths: new Map([[`${tag}0`, 0]]), count }
}

/**
 * The worker's side in this process: each request is structured-cloned in, answered by the same
 * function the worker runs, and cloned back on a later task, as postMessage does.
 */
class InProcessPort implements LayoutPort {
  onmessage: ((event: { data: LayoutResponse }) => void) | null = null
  onerror: ((event: unknown) => void) | null = null
  received: number[] = []
  private queue: LayoutRequest[] = []
  postMessage(request: LayoutRequest): void {
    this.received.push(request.id)
    this.queue.push(structuredClone(request))
  }
  /** Answers the oldest request not answered yet. */
  async answer(): Promise<void> {
    await new Promise((resolve) => setTimeout(resolve, 0))
    const request = this.queue.shift()
    if (request) this.onmessage?.({ data: structuredClone(runLayoutRequest(request)) })
  }
  fail(): void {
    this.onerror?.(new Error('the worker script did not load'))
  }
  terminate(): void {
    this.queue = []
  }
}

let ports: InProcessPort[] = []
afterEach(() => {
  ports = []
})

function scheduler(syncUpTo = 50) {
  const delivered: Array<{ layout: TreeLayout; context: string }> = []
  const instance = new LayoutScheduler<string>({
    options: layoutOptions,
    syncUpTo,
    createPort: () => {
      const port = new InProcessPort()
      ports.push(port)
      return port
    },
    onLayout: (layout, context) => delivered.push({ layout, context }),
  })
  return { instance, delivered }
}

const expected = (request: LayoutInput) => runLayoutRequest({ id: 0, input: request, options: layoutOptions }).layout

describe('LayoutScheduler', () => {
  it('lays a small tree out at once, without starting a worker', () => {
    const { instance, delivered } = scheduler()
    const small = input(30)
    expect(instance.request(small, 'small')).toEqual(expected(small))
    expect(ports).toHaveLength(0)
    expect(delivered).toHaveLength(0)
  })

  it('sends a big tree to the worker and hands its layout back with the request’s context', async () => {
    const { instance, delivered } = scheduler()
    const big = input(200)
    expect(instance.request(big, 'big')).toBeNull()
    await ports[0]!.answer()
    expect(delivered).toEqual([{ layout: expected(big), context: 'big' }])
    expect(delivered[0]!.layout.positions.size).toBe(200)
  })

  it('keeps one request out at a time, and of those made meanwhile sends only the newest', async () => {
    const { instance, delivered } = scheduler()
    instance.request(input(100, 'a'), 'a')
    instance.request(input(110, 'b'), 'b')
    instance.request(input(120, 'c'), 'c')
    const port = ports[0]!
    expect(port.received).toEqual([1])
    await port.answer()
    expect(port.received).toEqual([1, 3])
    await port.answer()
    expect(delivered.map((item) => item.context)).toEqual(['a', 'c'])
    expect(delivered[1]!.layout).toEqual(expected(input(120, 'c')))
  })

  it('drops a worker answer older than a layout made since (latest wins)', async () => {
    const { instance, delivered } = scheduler()
    instance.request(input(100), 'big')
    const small = input(20, 's')
    expect(instance.request(small, 'small')).toEqual(expected(small))
    await ports[0]!.answer()
    expect(delivered).toEqual([])
  })

  it('lays out synchronously, from the outstanding request on, once the worker fails', async () => {
    const { instance, delivered } = scheduler()
    instance.request(input(100, 'a'), 'a')
    instance.request(input(120, 'b'), 'b')
    ports[0]!.fail()
    expect(delivered.map((item) => item.context)).toEqual(['b'])
    expect(delivered[0]!.layout).toEqual(expected(input(120, 'b')))
    expect(instance.request(input(150, 'c'), 'c')).toEqual(expected(input(150, 'c')))
    expect(ports).toHaveLength(1)
  })
})

describe('layout.worker', () => {
  it('answers each message with the layout of its request, under the same id', async () => {
    const posted: unknown[] = []
    const scope = globalThis as unknown as {
      onmessage: ((event: { data: LayoutRequest }) => void) | null
      postMessage: (message: unknown) => void
    }
    scope.postMessage = (message) => posted.push(message)
    await import('./layout.worker')
    const big = input(80)
    scope.onmessage!({ data: structuredClone({ id: 7, input: big, options: layoutOptions }) })
    expect(posted).toEqual([{ id: 7, layout: expected(big) }])
  })
})
