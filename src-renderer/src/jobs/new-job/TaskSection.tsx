import type { ProfileInfo, ProfileList } from '@core/api/contract'
import { FormSection } from '../../settings/FormControls'
import { groupProfiles } from '../NewJobForm'
import { InlineCode } from './InlineCode'
import type { JobFields } from './job-fields'
import { ProfileProblems } from './ProfileProblems'

/** The task, and the profile the root agent runs as (null profiles: not listed yet or not readable). */
export function TaskSection(props: { fields: JobFields; profiles: ProfileList | null }) {
  const { profiles } = props
  const { form, id, update, row, fieldProps } = props.fields
  const grouped = groupProfiles(profiles?.profiles ?? [])
  const selectedProfile = profiles?.profiles.find((profile) => profile.name === form.profile)
  const profileMissing = !!profiles && !selectedProfile
  return (
    <FormSection title="Task" id={id('s-task')}>
      {row(
        'task',
        'Task',
        'What the root agent should do. It can hand parts of it to subagents.',
        <textarea
          {...fieldProps('task')}
          className="input task-input"
          rows={5}
          autoFocus
          spellCheck
          placeholder="e.g. Find where tax is computed and add a test for rounding"
          value={form.task}
          onChange={(event) => update('task', event.target.value)}
        />,
      )}
      {row(
        'profile',
        'Profile',
        null,
        <>
          <select
            {...fieldProps('profile')}
            className="input select"
            value={form.profile}
            onChange={(event) => update('profile', event.target.value)}
          >
            {profileMissing && <option value={form.profile}>{form.profile} (not found)</option>}
            {!profiles && <option value={form.profile}>{form.profile}</option>}
            <ProfileGroup label="Built-in" profiles={grouped.builtin} />
            <ProfileGroup label="This project" profiles={grouped.project} />
          </select>
          <div className="form-hint" id={`${id('profile')}-hint`}>
            {selectedProfile ? (
              <>
                <InlineCode text={selectedProfile.description} />{' '}
                <span className="faint">
                  · {selectedProfile.source === 'builtin' ? 'built-in' : selectedProfile.source}
                  {selectedProfile.can_delegate ? ' · may delegate' : ''}
                </span>
              </>
            ) : (
              'The root agent’s tools and instructions.'
            )}
          </div>
          {profiles && <ProfileProblems profiles={profiles} />}
        </>,
      )}
    </FormSection>
  )
}

/** One group of the profile select; none when it is empty. */
function ProfileGroup(props: { label: string; profiles: readonly ProfileInfo[] }) {
  if (props.profiles.length === 0) return null
  return (
    <optgroup label={props.label}>
      {props.profiles.map((profile) => (
        <option key={profile.name} value={profile.name}>
          {profile.name}
        </option>
      ))}
    </optgroup>
  )
}
