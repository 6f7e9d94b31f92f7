import { ProviderError } from './errors'

/**
 * Answers that are not what the API sends: a proxy's HTML page, a JSON body where an event
 * stream was asked for. The SDKs read any 200 as an event stream, so an HTML page would pass as
 * an empty reply; these checks name what came back instead, in a line a person can read.
 */

const limit = 200

/** The part of StreamWatchdog these reads run under. */
interface Waits {
  wait<T>(promise: Promise<T>): Promise<T>
}

/** An HTML page's title (else its text), a JSON error's message, or the start of the text. */
export function summarizeBody(body: string): string {
  const text = body.trim()
  if (text === '') return 'an empty body'
  if (/^<!doctype html|^<html[\s>]|<head[\s>]|<body[\s>]/i.test(text)) {
    const title = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(text)?.[1]
    const shown = squeeze(
      title && title.trim() !== '' ? title : text.replace(/<(script|style)[\s\S]*?<\/\1>/gi, ' ').replace(/<[^>]*>/g, ' '),
    )
    return `HTML page "${shown}"`
  }
  const message = jsonErrorMessage(text)
  return message === null ? squeeze(text) : squeeze(message)
}

/** `error.message` (OpenAI's and Anthropic's shapes) or `message`, when the text is such JSON. */
function jsonErrorMessage(text: string): string | null {
  try {
    const body = JSON.parse(text) as { error?: { message?: unknown } | string; message?: unknown } | null
    const candidate = typeof body?.error === 'string' ? body.error : (body?.error?.message ?? body?.message)
    return typeof candidate === 'string' && candidate !== '' ? candidate : null
  } catch {
    return null
  }
}

function squeeze(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim()
  return line.length > limit ? `${line.slice(0, limit)}…` : line
}

/**
 * Throws a `bad_response` ProviderError when a 2xx answer to a streaming request says it is not
 * an event stream. A missing content type passes: some compatible servers send none.
 */
export async function expectEventStream(response: Response, watchdog: Waits): Promise<void> {
  const type = response.headers.get('content-type')
  if (type === null || /^\s*text\/event-stream\s*(;|$)/i.test(type)) return
  const mediaType = type.split(';')[0]?.trim() || type
  const body = await readStart(response, watchdog)
  throw new ProviderError('bad_response', `${mediaType} instead of an event stream: ${summarizeBody(body)} (check the base URL)`, {
    status: response.status,
  })
}

/** The first few kilobytes of a body; the rest is left unread. */
async function readStart(response: Response, watchdog: Waits): Promise<string> {
  const reader = response.body?.getReader()
  if (!reader) return ''
  const decoder = new TextDecoder()
  let text = ''
  try {
    while (text.length < 8192) {
      const { done, value } = await watchdog.wait(reader.read())
      if (done) break
      text += decoder.decode(value, { stream: true })
    }
  } finally {
    void reader.cancel().catch(() => {})
  }
  return text
}
