import { z } from 'zod'

/** The `explore` result contract (product.md §3): one JSON object, no Markdown fences. */
export const exploreResultSchema = z.object({
  status: z.enum(['completed', 'partial']),
  summary: z.string().trim().min(1, 'summary must be a non-empty string'),
  findings: z.array(z.string()),
  evidence: z.array(z.string()),
  unresolved_questions: z.array(z.string()),
})
export type ExploreResult = z.infer<typeof exploreResultSchema>

export type ContractCheck = { ok: true; result: ExploreResult } | { ok: false; reason: string }

export const exploreShape =
  '{"status":"completed|partial","summary":"...","findings":["..."],"evidence":["path:line"],"unresolved_questions":["..."]}'

export function checkExploreResult(text: string): ContractCheck {
  if (text.includes('```')) return { ok: false, reason: 'the result must not use Markdown fences' }
  let value: unknown
  try {
    value = JSON.parse(text.trim())
  } catch (error) {
    return { ok: false, reason: `the result is not valid JSON (${(error as Error).message})` }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, reason: 'the result must be one JSON object' }
  }
  const parsed = exploreResultSchema.safeParse(value)
  if (!parsed.success) {
    const reasons = parsed.error.issues.map((issue) => {
      const field = issue.path.join('.')
      return field && !issue.message.startsWith(field) ? `${field}: ${issue.message}` : issue.message
    })
    return { ok: false, reason: reasons.join('; ') }
  }
  return { ok: true, result: parsed.data }
}

export const failMessage = (reason: string): string =>
  `FAIL: ${reason}. Answer again with exactly one JSON object ${exploreShape} and no Markdown fences.`
