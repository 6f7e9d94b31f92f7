import { FormSection } from '../../settings/FormControls'
import type { JobFields } from './job-fields'

/** What may run without asking, and whether subagents wait for a resume. */
export function ApprovalsSection(props: { fields: JobFields }) {
  const { id, row, toggle } = props.fields
  return (
    <FormSection title="Approvals" id={id('s-approvals')}>
      {row(
        'auto_approve',
        'Subagent auto-approve',
        'Run risky commands of subagents without asking. The root agent always asks. You can change it while the job runs.',
        toggle('auto_approve'),
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
