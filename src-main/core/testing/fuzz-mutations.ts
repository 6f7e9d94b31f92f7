import fc from 'fast-check'

/**
 * Mutations of a valid JSON value for the fuzz tests: a value somewhere in it replaced by an odd
 * one, a key or element dropped, or a key added (`__proto__` included, as JSON.parse makes it:
 * an own property). `at` picks the place among all of the value's places, the root included.
 */
export type Mutation =
  | { kind: 'replace'; at: number; value: unknown }
  | { kind: 'delete'; at: number }
  | { kind: 'add'; at: number; key: string; value: unknown }

/** Values a schema must refuse or survive: wrong types, extremes, odd strings. */
export const oddValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(null, true, false, 0, -0, -1, 0.5, 1e308, -1e308, 2 ** 53 + 1, Number.MAX_SAFE_INTEGER, 2 ** 31, -(2 ** 31) - 1),
  fc.constantFrom('', ' ', '\u0000', '__proto__', '../../etc/passwd', '\u001b[2J', 'x'.repeat(5000), '9'.repeat(400), [], {}, [[]], {
    '': null,
  }),
  fc.integer(),
  fc.double(),
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.jsonValue({ maxDepth: 2 }),
)

const key = fc.oneof(fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'id', 'job_id', ''), fc.string({ maxLength: 12 }))

export const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('replace' as const), at: fc.nat(), value: oddValue }),
  fc.record({ kind: fc.constant('delete' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('add' as const), at: fc.nat(), key, value: oddValue }),
)

type Place = Array<string | number>

function placesOf(value: unknown, prefix: Place = []): Place[] {
  const places: Place[] = [prefix]
  if (Array.isArray(value)) value.forEach((item, index) => places.push(...placesOf(item, [...prefix, index])))
  else if (value !== null && typeof value === 'object')
    for (const [name, item] of Object.entries(value)) places.push(...placesOf(item, [...prefix, name]))
  return places
}

/** Sets an own property, even `__proto__`. */
const define = (target: object, name: string | number, value: unknown): void => {
  Object.defineProperty(target, name, { value, enumerable: true, writable: true, configurable: true })
}

function mutateOnce(root: unknown, change: Mutation): unknown {
  const copy = structuredClone(root)
  const places = placesOf(copy)
  const place = places[change.at % places.length]!
  if (place.length === 0) {
    if (change.kind === 'replace') return change.value
    if (change.kind === 'delete') return undefined
  }
  const parent = place.slice(0, -1).reduce<unknown>((node, name) => (node as Record<string | number, unknown>)[name], copy) as Record<
    string | number,
    unknown
  >
  const name = place.at(-1)!
  const target = place.length === 0 ? copy : parent[name]
  if (change.kind === 'replace') define(parent, name, change.value)
  else if (change.kind === 'delete') {
    if (Array.isArray(parent) && typeof name === 'number') parent.splice(name, 1)
    else delete parent[name]
  } else if (Array.isArray(target)) target.push(change.value)
  else if (target !== null && typeof target === 'object') define(target, change.key, change.value)
  else if (place.length === 0) return { [change.key]: change.value }
  else define(parent, name, { [change.key]: change.value })
  return copy
}

export const mutateJson = (value: unknown, mutations: readonly Mutation[]): unknown => mutations.reduce(mutateOnce, value)
