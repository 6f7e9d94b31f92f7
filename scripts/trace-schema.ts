import { writeFileSync } from 'node:fs'
import { traceJsonSchemaText } from '../src-main/core/trace/json-schema'

/** `npm run trace-schema`: writes docs/trace.schema.json from the zod union in src-main/core/trace. */
const file = new URL('../docs/trace.schema.json', import.meta.url)
writeFileSync(file, traceJsonSchemaText())
console.log(`wrote ${file.pathname}`)
