import { describe, expect, it } from 'vitest'
import { backgroundResultsContent, envelopesOfDelivery } from './background-results'
import type { Envelope } from './events'

const envelope = (agentId: string): Envelope => ({
  status: 'completed',
  profile: 'general',
  agent_id: agentId,
  summary: 'done',
  result: 'done',
  terminal_reason: 'completed',
  stats: { steps: 1, tool_calls: 1, input_tokens: 10, output_tokens: 2, cost_usd: null, model: 'm', duration_ms: 5 },
})

describe('background results message', () => {
  it('reads back the envelopes it was written with, in order', () => {
    const envelopes = [envelope('agent_a'), envelope('agent_b')]
    expect(envelopesOfDelivery(backgroundResultsContent(envelopes))).toEqual(envelopes)
  })

  it('is null for any other text, or a body that is not envelopes', () => {
    expect(envelopesOfDelivery('[A message from the user, sent while you work]\nhello')).toBeNull()
    const heading = backgroundResultsContent([]).split('\n')[0]!
    expect(envelopesOfDelivery(`${heading}\n{not json`)).toBeNull()
    expect(envelopesOfDelivery(`${heading}\n[{"agent_id":"x"}]`)).toBeNull()
  })
})
