import { createWriteStream } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import type http from 'node:http'
import os from 'node:os'
import path from 'node:path'
import { Transform } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import type { Engine } from '../engine'
import { exportFormatSuffix, type ExportFormatName } from '../api/contract'
import { ArborError } from '../errors'
import { describeError, refuse, sendJson } from './replies'

/** GET /export/<job>.jsonl, .contents.jsonl (with the changed files' contents) or .otlp.json: the job's trace as a download. */
export async function serveExport(engine: Engine, jobId: string, format: ExportFormatName, response: http.ServerResponse): Promise<void> {
  try {
    const type = format === 'otlp' ? 'application/json' : 'application/x-ndjson'
    const extension = exportFormatSuffix[format]
    response.setHeader('Content-Type', `${type}; charset=utf-8`)
    response.setHeader('Content-Disposition', `attachment; filename="arbor-${jobId}.${extension}"`)
    await engine.exportTrace(jobId, response, format)
    response.end()
  } catch (error) {
    if (!response.headersSent) return refuse(response, 404, describeError(error))
    response.destroy(error instanceof Error ? error : undefined)
  }
}

/**
 * POST /import: the uploaded trace is streamed to a private temp file, then imported read-only.
 * The engine tells an Arbor trace from a Claude Code session by its first line. Only the one
 * file arrives, so a 2.x session's subagent files cannot come with it: its subagents are shown
 * from the parent's results, without their own transcripts (`arbor open` reads them in place).
 */
export async function serveImport(
  engine: Engine,
  maxBytes: number,
  request: http.IncomingMessage,
  response: http.ServerResponse,
): Promise<void> {
  const tooLarge = { error: { code: 'invalid_request', message: `the file is larger than ${maxBytes} bytes` } }
  if (Number(request.headers['content-length'] ?? 0) > maxBytes) {
    response.setHeader('Connection', 'close')
    return sendJson(response, 413, tooLarge)
  }
  const folder = await mkdtemp(path.join(os.tmpdir(), 'arbor-upload-'))
  const file = path.join(folder, 'trace.jsonl')
  try {
    let received = 0
    const limit = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        received += chunk.length
        done(received > maxBytes ? new UploadTooLarge() : null, chunk)
      },
    })
    await pipeline(request, limit, createWriteStream(file, { mode: 0o600 }))
    sendJson(response, 200, engine.importTrace(file))
  } catch (error) {
    if (response.headersSent || response.destroyed) return
    if (!UploadTooLarge.isInstance(error))
      return sendJson(response, 400, { error: { code: 'invalid_request', message: describeError(error) } })
    // Answer first, then close: the rest of an oversized body is not read.
    response.setHeader('Connection', 'close')
    sendJson(response, 413, tooLarge)
  } finally {
    await rm(folder, { recursive: true, force: true })
  }
}

class UploadTooLarge extends ArborError<'upload_too_large'> {
  static override readonly marker: symbol = Symbol.for('arbor.error.UploadTooLarge')

  constructor() {
    super('upload_too_large', 'the upload is larger than this server takes')
  }
}
