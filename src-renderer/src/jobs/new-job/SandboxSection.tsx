import { noSandboxConfirmation } from '@core/api/job-form'
import { FormSection } from '../../settings/FormControls'
import type { JobFields } from './job-fields'

/**
 * Where commands run: in the OS sandbox (network off unless allowed), or, asked for on every job
 * and confirmed with a second tick, without it.
 */
export function SandboxSection(props: { fields: JobFields }) {
  const { form, id, row, toggle, fieldProps, update } = props.fields
  return (
    <FormSection title="Sandbox" id={id('s-sandbox')}>
      {row(
        'allow_network',
        'Network',
        'Let commands reach the network (install packages, fetch URLs). Off: commands run with no network.',
        toggle('allow_network'),
      )}
      {row(
        'no_sandbox',
        'No sandbox',
        'Run commands without the OS sandbox. Never remembered: asked for again on every job.',
        toggle('no_sandbox'),
      )}
      {form.no_sandbox &&
        row(
          'no_sandbox_confirmed',
          'Confirm',
          'Start job stays off until this is ticked.',
          <div className="callout error sandbox-warning" role="alert" data-testid="no-sandbox-warning">
            <div className="callout__title">Commands will run without the sandbox</div>
            <p className="sandbox-warning__text">
              Every command an agent runs, subagents’ auto-approved ones included, can read, change and delete any file you can, anywhere on
              this machine, and reach the network.
            </p>
            <label className="confirm-check">
              <input
                {...fieldProps('no_sandbox_confirmed')}
                type="checkbox"
                checked={form.no_sandbox_confirmed}
                onChange={(event) => update('no_sandbox_confirmed', event.target.checked)}
              />
              <span>{noSandboxConfirmation}</span>
            </label>
          </div>,
        )}
    </FormSection>
  )
}
