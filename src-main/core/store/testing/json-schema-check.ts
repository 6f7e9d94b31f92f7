/**
 * A small JSON Schema (2020-12) checker for tests, enough for docs/trace.schema.json:
 * $ref (local), type, const, enum, required, properties, additionalProperties, items,
 * minimum, oneOf, allOf, if/then. Returns the problems found, empty when the value conforms.
 */
type Schema = boolean | { [keyword: string]: unknown }

export function checkJsonSchema(root: Schema, value: unknown): string[] {
  const resolve = (ref: string): Schema => {
    if (!ref.startsWith('#/')) throw new Error(`only local $refs are supported: ${ref}`)
    let node: unknown = root
    for (const part of ref.slice(2).split('/')) node = (node as Record<string, unknown>)[part.replaceAll('~1', '/').replaceAll('~0', '~')]
    if (node === undefined) throw new Error(`unresolved $ref ${ref}`)
    return node as Schema
  }

  const visit = (schema: Schema, current: unknown, path: string): string[] => {
    if (schema === true) return []
    if (schema === false) return [`${path}: no value is allowed here`]
    const problems: string[] = []
    const at = path || '(root)'
    if (typeof schema.$ref === 'string') problems.push(...visit(resolve(schema.$ref), current, path))
    if (schema.type !== undefined) {
      const types = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string]
      if (!types.some((type) => hasType(current, type))) problems.push(`${at}: expected ${types.join(' or ')}, got ${typeOf(current)}`)
    }
    if ('const' in schema && JSON.stringify(schema.const) !== JSON.stringify(current)) {
      problems.push(`${at}: expected ${JSON.stringify(schema.const)}`)
    }
    if (Array.isArray(schema.enum) && !schema.enum.some((option) => JSON.stringify(option) === JSON.stringify(current))) {
      problems.push(`${at}: ${JSON.stringify(current)} is not one of ${JSON.stringify(schema.enum)}`)
    }
    if (typeof schema.minimum === 'number' && typeof current === 'number' && current < schema.minimum) {
      problems.push(`${at}: ${current} is below ${schema.minimum}`)
    }
    if (isObject(current)) {
      const properties = (schema.properties ?? {}) as Record<string, Schema>
      for (const key of (schema.required ?? []) as string[]) {
        if (!(key in current)) problems.push(`${at}: missing required key "${key}"`)
      }
      for (const [key, child] of Object.entries(current)) {
        const childSchema = properties[key] ?? (schema.additionalProperties as Schema | undefined)
        if (childSchema !== undefined) problems.push(...visit(childSchema, child, `${path}/${key}`))
      }
    }
    if (Array.isArray(current) && schema.items !== undefined) {
      current.forEach((item, index) => problems.push(...visit(schema.items as Schema, item, `${path}/${index}`)))
    }
    for (const part of (schema.allOf ?? []) as Schema[]) problems.push(...visit(part, current, path))
    if (Array.isArray(schema.oneOf)) {
      const passing = (schema.oneOf as Schema[]).map((option) => visit(option, current, path))
      const matches = passing.filter((result) => result.length === 0).length
      if (matches !== 1) {
        const closest = passing.reduce((best, result) => (result.length < best.length ? result : best))
        problems.push(matches === 0 ? `${at}: matches no oneOf option (${closest.join('; ')})` : `${at}: matches ${matches} oneOf options`)
      }
    }
    if (schema.if !== undefined && schema.then !== undefined && visit(schema.if as Schema, current, path).length === 0) {
      problems.push(...visit(schema.then as Schema, current, path))
    }
    return problems
  }

  return visit(root, value, '')
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

function hasType(value: unknown, type: string): boolean {
  switch (type) {
    case 'null':
      return value === null
    case 'integer':
      return Number.isInteger(value)
    case 'array':
      return Array.isArray(value)
    case 'object':
      return isObject(value)
    default:
      return typeof value === type
  }
}

const typeOf = (value: unknown): string => (value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value)
