import '@xyflow/react/dist/style.css'
import './styles/index.css'
import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { createTransport } from './api/transport'
import { App } from './App'
import { connectLive } from './live/connect-live'
import { useArbor } from './store'
import { setTransport } from './store/api-ref'
import { startClock } from './util/clock'

const transport = createTransport()
setTransport(transport)
connectLive(transport)
startClock()

const store = useArbor.getState()
void store.loadState()
void store.loadJobs()

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
)
