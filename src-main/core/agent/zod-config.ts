import { z } from 'zod'

/**
 * Imported first by the agent entry (main.ts), before any module that makes a schema: zod reads
 * `jitless` when a schema is made, not when it parses, so set later it would change nothing.
 *
 * An agent parses a few messages of each shape: compiling a fast parser for each (zod's JIT, a
 * few ms of `new Function` per nested object on the first `start`) costs more than it saves here.
 */
z.config({ jitless: true })
