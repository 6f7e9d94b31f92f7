import type { ReactNode } from 'react'
import type { PriceTable } from '@core/providers/pricing'
import type { OnBudget } from '@core/trace/model'
import { FormSection } from '../../settings/FormControls'
import { unpricedModels } from '../NewJobForm'
import { Affix } from './Affix'
import type { JobFields } from './job-fields'

/** How deep and wide the tree may grow, and what it may spend. */
export function LimitsSection(props: { fields: JobFields; prices: PriceTable }) {
  const { id, row, textInput, form, update, fieldProps } = props.fields
  return (
    <FormSection title="Limits & budgets" id={id('s-limits')}>
      {row(
        'max_depth',
        'Max depth',
        'Levels of subagents below the root (0: the root works alone; at most 8).',
        textInput('max_depth', { inputMode: 'numeric', className: 'narrow' }),
      )}
      {row(
        'max_concurrent_children',
        'Max children per parent',
        'Subagents one parent runs at once; more wait in its queue.',
        textInput('max_concurrent_children', { inputMode: 'numeric', className: 'narrow' }),
      )}
      {row(
        'max_spawns_per_turn',
        'Max spawns per turn',
        'Subagents one agent may start from a single reply. 0: no limit.',
        <Affix suffix="per turn">{textInput('max_spawns_per_turn', { inputMode: 'numeric' })}</Affix>,
      )}
      {row(
        'max_spawns_per_minute',
        'Max spawns per minute',
        'Subagents the whole job may start in a minute, a guard against a runaway tree. 0: no limit.',
        <Affix suffix="per minute">{textInput('max_spawns_per_minute', { inputMode: 'numeric' })}</Affix>,
      )}
      {row(
        'max_agents',
        'Agents per job',
        'Subagents the whole job may start (the root not counted). One more waits on its node for you to allow or cancel it. 0: no limit.',
        <Affix suffix="agents">{textInput('max_agents', { inputMode: 'numeric' })}</Affix>,
      )}
      {row(
        'restart_crashed',
        'Restarts after a crash',
        'Times an agent whose process crashed goes on in a new one from where it was. 0: a crash ends it.',
        <Affix suffix="per agent">{textInput('restart_crashed', { inputMode: 'numeric' })}</Affix>,
      )}
      {row(
        'rate_limit_wait_minutes',
        'Wait through rate limits',
        'How long a model call that is rate limited or finds the API overloaded waits and tries again before the agent fails. 0: it fails at once.',
        <Affix suffix="minutes">{textInput('rate_limit_wait_minutes', { inputMode: 'decimal' })}</Affix>,
      )}
      {row(
        'job_token_budget',
        'Job token budget',
        'Tokens across the whole tree; when they are spent the job pauses or stops (below). Empty: none.',
        <Affix suffix="tokens">{textInput('job_token_budget', { inputMode: 'numeric', placeholder: 'none' })}</Affix>,
        { optional: true },
      )}
      {row(
        'job_cost_budget',
        'Job cost budget',
        'USD across the whole tree; needs a price for each model. Empty: none.',
        <Affix prefix="$" suffix="USD">
          {textInput('job_cost_budget', { inputMode: 'decimal', placeholder: 'none' })}
        </Affix>,
        { error: costError(props.fields, props.prices), optional: true },
      )}
      {row(
        'on_budget',
        'When a budget is spent',
        'Pause: every agent waits at its next step until you raise the budget (nothing is lost). Stop: every agent ends.',
        <select
          {...fieldProps('on_budget')}
          className="input select"
          value={form.on_budget}
          onChange={(event) => update('on_budget', event.target.value as OnBudget)}
        >
          <option value="pause">Pause until raised</option>
          <option value="stop">Stop every agent</option>
        </select>,
      )}
      {row(
        'agent_timeout_s',
        'Per-agent timeout',
        'Wall-clock limit for each agent. Empty: none.',
        <Affix suffix="seconds">{textInput('agent_timeout_s', { inputMode: 'numeric', placeholder: 'none' })}</Affix>,
        { optional: true },
      )}
    </FormSection>
  )
}

/** The cost budget's error, with a button to add a price for each model that has none. */
function costError(fields: JobFields, prices: PriceTable): ReactNode {
  const message = fields.errorOf('job_cost_budget')
  if (!message) return undefined
  const missing = unpricedModels(fields.form, prices).filter(Boolean)
  return (
    <>
      <span>{message}</span>
      {missing.length > 0 && (
        <span className="form-error__actions">
          {missing.map((model) => (
            <button
              key={model}
              type="button"
              className="button small"
              data-testid="job-add-price"
              data-model={model}
              onClick={() => fields.openSettings('job_cost_budget', model)}
            >
              Add a price for “{model}”
            </button>
          ))}
        </span>
      )}
    </>
  )
}
