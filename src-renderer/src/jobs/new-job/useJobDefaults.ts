import { useEffect, useState } from 'react'
import type { ProfileList } from '@core/api/contract'
import { defaultNewJob } from '@core/api/job-form'
import { useArbor } from '../../store'
import { api } from '../../store/api-ref'
import { errorText } from '../../store/error-text'
import { formFromJob, type NewJobForm } from '../NewJobForm'

/**
 * The new-job form, filled once on open from this project's last job (or the defaults), with the
 * project's profiles and the settings (providers, prices) loaded beside it. What could not be read
 * is said in `loadErrors`; the form opens anyway. Null form: still loading.
 */
export function useJobDefaults() {
  const [form, setForm] = useState<NewJobForm | null>(null)
  const [profiles, setProfiles] = useState<ProfileList | null>(null)
  const [loadErrors, setLoadErrors] = useState<string[]>([])

  useEffect(() => {
    let cancelled = false
    const store = useArbor.getState()
    void Promise.allSettled([api().getJobDefaults({}), api().listProfiles({}), store.loadSettings()]).then(([defaults, list, view]) => {
      if (cancelled) return
      const problems: string[] = []
      if (defaults.status === 'rejected') problems.push(`Could not read this project's last job settings: ${errorText(defaults.reason)}`)
      if (list.status === 'fulfilled') setProfiles(list.value)
      else problems.push(`Could not list the profiles: ${errorText(list.reason)}`)
      if (view.status === 'rejected') problems.push(`Could not read the settings (providers and prices): ${errorText(view.reason)}`)
      setLoadErrors(problems)
      setForm(formFromJob(defaults.status === 'fulfilled' ? defaults.value.job : defaultNewJob()))
    })
    return () => {
      cancelled = true
    }
  }, [])

  return { form, setForm, profiles, loadErrors }
}
