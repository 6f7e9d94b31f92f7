import { createInterface } from 'node:readline/promises'
import type { ApiNotification } from '../core/api/contract'
import { groupDigits } from '../core/digits'
import { BudgetRefused, type SpentCap } from '../core/supervisor/budget-pauses'
import type { Supervisor } from '../core/supervisor/supervisor'
import type { PromptStreams } from './approvals'

/** What the user answered: new caps for the cap that is spent, or stop there. */
export type CapAnswer = { tokens: number } | { cost_usd: number } | 'stop'

/**
 * `arbor run --on-budget pause` on a terminal: when the job's agents pause at a spent cap (the
 * job's, or a branch's), asks for a new one on the terminal, one cap at a time, and raises it
 * (they go on) or, on an empty answer or `stop`, stops there as `--on-budget stop` would. A cap
 * the supervisor refuses (not above what is spent) is asked again, with why. Checked after each
 * batch of events, so a pause is asked about as soon as it is recorded.
 */
export function askForBudgets(
  supervisor: Supervisor,
  jobId: () => string | undefined,
  streams: PromptStreams = { input: process.stdin, output: process.stderr },
): (notification: ApiNotification) => void {
  let asking = false
  const askNext = async (): Promise<void> => {
    const id = jobId()
    const spent = id === undefined ? undefined : supervisor.spentCaps(id)[0]
    if (id === undefined || !spent) return
    for (let refusal: string | null = null; ;) {
      const answer = await askForCap(streams, spent, refusal)
      if (answer === 'stop') return supervisor.stopAtBudget(id, spent.agentId)
      try {
        supervisor.setBudget(spent.agentId === null ? { jobId: id } : { agentId: spent.agentId }, answer)
        return
      } catch (error) {
        if (!(error instanceof BudgetRefused)) throw error
        refusal = error.message
      }
    }
  }
  return () => {
    if (asking) return
    asking = true
    // Another cap may be spent by the time one is answered: asked about in turn.
    const loop = async (): Promise<void> => {
      for (let last = ''; ;) {
        const id = jobId()
        const next = id === undefined ? undefined : supervisor.spentCaps(id)[0]
        const key = next ? `${next.agentId}:${next.caps.tokens}:${next.caps.cost_usd}` : ''
        if (!next || key === last) return
        last = key
        await askNext()
      }
    }
    void loop().finally(() => {
      asking = false
    })
  }
}

/** Without a terminal: a job that pauses at a cap (one continued with `--continue`) stops there instead. */
export function stopAtBudgets(supervisor: Supervisor, jobId: () => string | undefined): (notification: ApiNotification) => void {
  return () => {
    const id = jobId()
    for (const spent of id === undefined ? [] : supervisor.spentCaps(id)) supervisor.stopAtBudget(id!, spent.agentId)
  }
}

/**
 * One question: the cap that is spent, and a new one for it (tokens, or USD for a cost cap).
 * `refusal` says why the last answer was not taken. Empty or `stop` stops; anything that is not
 * a number above 0 is asked again.
 */
export async function askForCap(streams: PromptStreams, spent: SpentCap, refusal: string | null = null): Promise<CapAnswer> {
  const prompt = createInterface({ ...streams, terminal: false })
  try {
    const tokensSpent = spent.caps.tokens !== null && spent.spend.tokens >= spent.caps.tokens
    const whose = spent.agentId === null ? 'the job' : `the branch of ${spent.label}`
    const now = tokensSpent ? groupDigits(spent.caps.tokens ?? 0) : `$${spent.caps.cost_usd}`
    const header = refusal ? `arbor: not raised: ${refusal}` : `\n⏸ paused: ${spent.message}`
    for (let first = true; ; first = false) {
      const question = `${first ? `${header}\n` : ''}New ${tokensSpent ? 'token' : 'cost (USD)'} budget for ${whose} (now ${now}; empty or "stop": stop ${whose}): `
      const answer = (await prompt.question(question)).trim()
      if (answer === '' || /^stop$/i.test(answer)) return 'stop'
      const value = Number(tokensSpent ? answer.replace(/[\s,_]/g, '') : answer.replace(/^\$\s*/, ''))
      if (Number.isFinite(value) && value > 0 && (!tokensSpent || Number.isInteger(value))) {
        return tokensSpent ? { tokens: value } : { cost_usd: value }
      }
      streams.output.write(`arbor: "${answer}" is not ${tokensSpent ? 'a whole number of tokens' : 'an amount in USD'} above 0\n`)
    }
  } finally {
    prompt.close()
  }
}
