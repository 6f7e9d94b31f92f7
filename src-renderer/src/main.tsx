import '@xyflow/react/dist/style.css'
import './styles/index.css'
import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { createTransport } from './api/transport'
import { App } from './App'
import { connectLive } from './live/connect-live'
import { startBrowserNotifications } from './notifications/browser-notifications'
import { useArbor } from './store'
import { setTransport } from './store/api-ref'
import { startClock } from './util/clock'

const transport = createTransport()
setTransport(transport)
connectLive(transport)
startBrowserNotifications(transport)
startClock()

/** First load: the engine state, then the project's jobs; `?job=<id>` (as `arbor open FILE` prints) selects that job. */
async function boot(): Promise<void> {
  const store = useArbor.getState()
  try {
    await store.loadState()
  } finally {
    store.setReady()
  }
  const jobId = new URLSearchParams(window.location.search).get('job')
  if (jobId) useArbor.getState().showJob(jobId)
  else await useArbor.getState().loadJobs()
}
void boot()

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
)
