import { z } from 'zod'
import { traceEventSchema, traceHeaderSchema } from './events'
import { fileContentLineSchema } from './file-content-line'

/**
 * docs/trace.schema.json, generated from the zod schemas every reader parses with, so the
 * published format and the code cannot drift apart (`npm run trace-schema` writes it; a test
 * fails when the committed file is stale). `io: 'input'` describes what a file may hold: loose
 * objects stay open to keys a later version adds.
 */
export function traceJsonSchema(): Record<string, unknown> {
  const line = z.union([traceHeaderSchema, traceEventSchema, fileContentLineSchema])
  const generated = z.toJSONSchema(line, { target: 'draft-2020-12', io: 'input' })
  const { $schema, ...rest } = generated
  return {
    $schema,
    $id: 'urn:arbor:trace:1',
    title: 'Arbor trace JSONL, version 1: one line',
    description:
      'Each line of an Arbor trace file is one JSON value: line 1 is the header, every other line an event (or, in an export with file contents, a `file.content` line). See docs/trace-format.md. Generated from src-main/core/trace by `npm run trace-schema`; do not edit.',
    ...rest,
  }
}

/** The file's text: two-space JSON and a final newline. */
export const traceJsonSchemaText = (): string => `${JSON.stringify(traceJsonSchema(), null, 2)}\n`
