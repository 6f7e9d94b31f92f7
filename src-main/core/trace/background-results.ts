import { z } from 'zod'
import { envelopeSchema, type Envelope } from './events'

/**
 * The message that hands a parent the envelopes of background children it did not await
 * (agent/loop.ts writes it, recorded `by: 'arbor'` with `background_results`): a line the model
 * reads as Arbor's, then the envelopes as JSON. Kept here so the inspector reads what the loop wrote.
 */
const heading =
  '[Arbor: subagents of yours ended while you worked (in the background, or after the user followed one up); their result envelopes]'

export const backgroundResultsContent = (envelopes: readonly Envelope[]): string => `${heading}\n${JSON.stringify(envelopes)}`

/** The envelopes a delivery message carries; null when the text is not one (edited, or from elsewhere). */
export function envelopesOfDelivery(content: string): Envelope[] | null {
  if (!content.startsWith(`${heading}\n`)) return null
  try {
    const parsed = z.array(envelopeSchema).safeParse(JSON.parse(content.slice(heading.length + 1)))
    return parsed.success ? parsed.data : null
  } catch {
    return null
  }
}
