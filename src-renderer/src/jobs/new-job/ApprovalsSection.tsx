import type { SubagentApprovals } from '@core/trace/statuses'
import { FormSection } from '../../settings/FormControls'
import { approvalModeText } from '../../util/approval-modes'
import type { JobFields } from './job-fields'

/** What may run without asking, and whether subagents wait for a resume. */
export function ApprovalsSection(props: { fields: JobFields }) {
  const { id, row, toggle, form, update, fieldProps } = props.fields
  return (
    <FormSection title="Approvals" id={id('s-approvals')}>
      {row(
        'subagent_approvals',
        'Subagent commands',
        'What happens to a subagent’s risky command. The root agent always asks. You can change it while the job runs.',
        <select
          {...fieldProps('subagent_approvals')}
          className="input select"
          value={form.subagent_approvals}
          onChange={(event) => update('subagent_approvals', event.target.value as SubagentApprovals)}
        >
          {(['deny', 'ask', 'approve'] as const).map((mode) => (
            <option key={mode} value={mode}>
              {approvalModeText[mode].option}
            </option>
          ))}
        </select>,
      )}
      {row(
        'spawn_paused',
        'Start with spawning paused',
        'The root starts; its subagents wait in the queue until you resume spawning.',
        toggle('spawn_paused'),
      )}
    </FormSection>
  )
}
