import type { Transport } from '../api/transport'
import { useArbor } from '../store'
import { notificationsFor, type PlannedNotification } from './notification-rules'

/**
 * System notifications for a browser tab (desktop: the main process shows Electron's own, so
 * the renderer does nothing). A job whose root starts waiting for approval, and a job that ends,
 * give one notification each, unless that job is the one on screen in a focused window.
 * Permission is asked once per page load: at the first job start (right after the user's click)
 * or else the first time a notification would be shown.
 */
export function startBrowserNotifications(transport: Transport): () => void {
  if (transport.kind !== 'browser' || typeof Notification === 'undefined') return () => undefined
  const shown = new Set<string>()
  let asked = false

  const permission = async (): Promise<boolean> => {
    if (Notification.permission === 'granted') return true
    if (Notification.permission === 'denied' || asked) return false
    asked = true
    try {
      return (await Notification.requestPermission()) === 'granted'
    } catch {
      return false
    }
  }

  const onScreen = (jobId: string): boolean =>
    document.visibilityState === 'visible' && document.hasFocus() && useArbor.getState().selectedJobId === jobId

  const show = async (item: PlannedNotification): Promise<void> => {
    if (shown.has(item.key) || onScreen(item.jobId)) return
    shown.add(item.key)
    if (!(await permission())) return
    // One per job in the notification centre: a newer one replaces the older.
    const notification = new Notification(item.title, { body: item.body, tag: `arbor-${item.jobId}` })
    notification.onclick = () => {
      window.focus()
      useArbor.getState().showJob(item.jobId)
      notification.close()
    }
  }

  return transport.api.subscribe((notification) => {
    if (notification.kind !== 'events') return
    // Notification.permission last: in Chromium reading it is a synchronous call to the browser process.
    if (!asked && notification.events.some((event) => event.type === 'job.start') && Notification.permission === 'default') {
      void permission()
    }
    const taskOf = (jobId: string): string => useArbor.getState().jobs[jobId]?.task ?? ''
    for (const item of notificationsFor(notification.events, { taskOf })) void show(item)
  })
}
