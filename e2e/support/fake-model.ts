import type { ConversationView, FakeServer } from '../../src-main/core/providers/testing/fake-http'
import { openaiConversations, startFakeOpenAI, type FakeOpenAIResponse } from '../../src-main/core/providers/testing/fake-openai'

/**
 * The project's own OpenAI-compatible model for the e2e journey: a real HTTP server streaming the
 * Chat Completions wire format, answering by conversation. The root (its task contains
 * `rootMarker`) delegates two explore children that each read one real file, then asks to run a
 * risky `bash` command; when that is denied it asks again, and once it ran it completes.
 */
export const rootMarker = 'E2E-SURVEY'
export const riskyCommand = 'rm notes.txt'
export const rootAnswer = 'Survey done: README and cart read; notes.txt removed.'
const areas = { 'AREA-README': 'README.md', 'AREA-CART': 'cart.ts' } as const

function childScript(area: keyof typeof areas) {
  const file = areas[area]
  return {
    match: area,
    turns: [
      { delay_ms: 1200, text: `Reading ${file}.`, tool_calls: [{ name: 'read_file', arguments: { path: file } }] },
      (view: ConversationView): FakeOpenAIResponse => {
        const firstLine = (view.tool_results[0]?.content ?? '').split('\n')[0]?.replace(/^\s*\d+\t/, '') ?? ''
        const report = {
          status: 'completed',
          summary: `${file} starts with: ${firstLine}`,
          findings: [`read ${file}`],
          evidence: [`${file}:1`],
          unresolved_questions: [],
        }
        return { delay_ms: 1200, tool_calls: [{ name: 'attempt_completion', arguments: { result: JSON.stringify(report) } }] }
      },
    ],
  }
}

const bash = (): FakeOpenAIResponse => ({
  delay_ms: 300,
  text: 'Removing the stale notes file.',
  tool_calls: [{ name: 'bash', arguments: { command: riskyCommand } }],
})

const rootScript = {
  match: rootMarker,
  turns: [
    {
      delay_ms: 800,
      text: 'I will read the two key files in parallel.',
      tool_calls: Object.keys(areas).map((area) => ({
        name: 'task',
        arguments: { description: area, prompt: `Read the file for ${area} and report as explore JSON.`, subagent_type: 'explore' },
      })),
    },
    bash,
    (view: ConversationView): FakeOpenAIResponse => (/denied/i.test(view.tool_results[0]?.content ?? '') ? bash() : completion()),
    () => completion(),
  ],
}

const completion = (): FakeOpenAIResponse => ({
  delay_ms: 300,
  tool_calls: [{ name: 'attempt_completion', arguments: { result: rootAnswer } }],
})

export async function startFakeModel(): Promise<FakeServer<FakeOpenAIResponse>> {
  return startFakeOpenAI({
    route: (request) => {
      const body = request.body as { messages?: Array<{ role: string; content: unknown }>; tools?: unknown[] } | null
      // Settings ▸ Test connection: one user message and no tools.
      if (!body?.tools?.length && body?.messages?.length === 1) return { text: 'pong' }
      return openaiConversations([childScript('AREA-README'), childScript('AREA-CART'), rootScript])(request)
    },
  })
}
