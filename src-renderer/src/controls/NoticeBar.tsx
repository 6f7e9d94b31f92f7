import { useEffect } from 'react'
import { useArbor, type ArborState } from '../store'

const selectNotice = (state: ArborState) => state.notice
const visibleMs = 8000

/** The latest error or message, dismissed by click or after a few seconds. */
export function NoticeBar() {
  const notice = useArbor(selectNotice)
  useEffect(() => {
    if (!notice) return
    const timer = setTimeout(() => {
      if (useArbor.getState().notice?.id === notice.id) useArbor.getState().dismissNotice()
    }, visibleMs)
    return () => clearTimeout(timer)
  }, [notice])
  if (!notice) return null
  return (
    <div className={`notice ${notice.kind}`} role="alert" data-testid="notice" onClick={() => useArbor.getState().dismissNotice()}>
      {notice.text}
    </div>
  )
}
