import { useEffect, useRef, useState, type KeyboardEvent } from 'react'
import { useArbor } from '../store'
import { errorText } from '../store/error-text'
import { rememberFocus, trapTab } from '../util/focus'
import { PriceTable } from './PriceTable'
import { ProviderCard } from './ProviderCard'
import { ModelCallsCard } from './ModelCallsCard'
import { keyStorageText } from './settings-model'
import { TraceExportSection } from './TraceExportSection'
import { McpServersSection } from './McpServersSection'

/** The settings page: renders nothing while closed (store: settingsOpen). */
export function SettingsPage() {
  const open = useArbor((state) => state.settingsOpen)
  return open ? <SettingsBody /> : null
}

const sections = [
  { id: 'providers', title: 'Providers' },
  { id: 'prices', title: 'Prices' },
  { id: 'trace-export', title: 'Trace export' },
  { id: 'mcp', title: 'MCP servers' },
] as const
type SectionId = (typeof sections)[number]['id']

function SettingsBody() {
  const view = useArbor((state) => state.settingsView)
  const focus = useArbor((state) => state.settingsFocus)
  const newJobOpen = useArbor((state) => state.newJobOpen)
  const [loadError, setLoadError] = useState<string | null>(null)
  const [loading, setLoading] = useState(true)
  const [active, setActive] = useState<SectionId>(focus?.priceModel ? 'prices' : 'providers')
  const rootRef = useRef<HTMLDivElement>(null)
  const contentRef = useRef<HTMLDivElement>(null)

  const load = () => {
    setLoading(true)
    setLoadError(null)
    useArbor
      .getState()
      .loadSettings()
      .catch((error: unknown) => setLoadError(errorText(error)))
      .finally(() => setLoading(false))
  }

  useEffect(() => {
    const restore = rememberFocus()
    if (!focus?.priceModel) rootRef.current?.querySelector<HTMLElement>('[data-testid="settings-close"]')?.focus()
    load()
    return restore
    // Once per opening; a later focus request is handled by the price table.
  }, [])

  const close = () => useArbor.getState().closeSettings()

  // Escape is heard on the window: a button that just became disabled drops the focus to the
  // body, outside this page, and Escape must still close it. A field that handles Escape itself
  // stops it first.
  useEffect(() => {
    const onEscape = (event: globalThis.KeyboardEvent) => {
      if (event.key !== 'Escape' || event.defaultPrevented) return
      event.preventDefault()
      useArbor.getState().closeSettings()
    }
    window.addEventListener('keydown', onEscape)
    return () => window.removeEventListener('keydown', onEscape)
  }, [])

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (event.key === 'Tab') trapTab(event.nativeEvent, rootRef.current)
  }

  const scrollTo = (section: SectionId) => {
    setActive(section)
    contentRef.current?.querySelector(`#settings-${section}`)?.scrollIntoView({ behavior: 'smooth', block: 'start' })
  }

  const onScroll = () => {
    const content = contentRef.current
    if (!content) return
    const top = content.getBoundingClientRect().top
    let current: SectionId = 'providers'
    for (const section of sections) {
      const element = content.querySelector(`#settings-${section.id}`)
      if (element && element.getBoundingClientRect().top - top < content.clientHeight / 2) current = section.id
    }
    if (content.scrollTop + content.clientHeight >= content.scrollHeight - 4) current = sections[sections.length - 1]!.id
    setActive(current)
  }

  const storage = view ? keyStorageText(view.key_storage) : null

  return (
    <div
      ref={rootRef}
      className="settings-overlay"
      data-testid="settings"
      role="dialog"
      aria-modal="true"
      aria-labelledby="settings-title"
      onKeyDown={onKeyDown}
    >
      <header className="settings__header">
        <h1 className="settings__title" id="settings-title">
          Settings
        </h1>
        <span className="settings__header-note">Each card saves with its own button; settings apply to every project</span>
        <span className="settings__spacer" />
        {newJobOpen && (
          <button type="button" className="button" data-testid="settings-back-to-job" onClick={close}>
            ← Back to the new job
          </button>
        )}
        <button
          type="button"
          className="icon-button settings__close"
          aria-label="Close settings"
          title="Close (Esc)"
          data-testid="settings-close"
          onClick={close}
        >
          ×
        </button>
      </header>
      <div className="settings__layout">
        <nav className="settings__nav" aria-label="Settings sections">
          {sections.map((section) => (
            <button
              key={section.id}
              type="button"
              className={`settings__nav-item${active === section.id ? ' active' : ''}`}
              aria-current={active === section.id ? 'true' : undefined}
              onClick={() => scrollTo(section.id)}
            >
              {section.title}
            </button>
          ))}
        </nav>
        <div className="settings__content" ref={contentRef} onScroll={onScroll}>
          <div className="settings__column">
            {loadError && (
              <div className="callout error" role="alert" data-testid="settings-load-error">
                <div className="callout__title">Could not read the settings</div>
                <div>{loadError}</div>
                <button type="button" className="button small" onClick={load}>
                  Try again
                </button>
              </div>
            )}
            {!view && loading && (
              <div className="settings__loading" aria-busy="true">
                <span className="spinner" /> Loading settings…
              </div>
            )}
            {view && storage && (
              <>
                <section className="settings-section" id="settings-providers" aria-labelledby="settings-providers-title">
                  <div className="settings-section__head">
                    <h2 className="settings-section__title" id="settings-providers-title">
                      Providers
                    </h2>
                    <p className="settings-section__description">
                      Keys, endpoints and default models for new jobs. A key is write-only: Arbor shows where it comes from and its last
                      four characters, never the key.
                    </p>
                  </div>
                  <div
                    className={`callout key-storage ${view.key_storage.encrypted ? 'ok' : 'warn'}`}
                    data-testid="key-storage"
                    data-encrypted={view.key_storage.encrypted}
                  >
                    <span className="key-storage__icon" aria-hidden>
                      {view.key_storage.encrypted ? '🔒' : '⚠'}
                    </span>
                    <div>
                      <div className="callout__title">{storage.headline}</div>
                      <div className="mono small muted">{storage.detail}</div>
                      {storage.warning && (
                        <div className="key-storage__warning" data-testid="key-storage-unavailable">
                          {storage.warning}
                        </div>
                      )}
                    </div>
                  </div>
                  {view.providers.map((info) => (
                    <ProviderCard key={info.id} info={info} storage={view.key_storage} prices={view.prices} />
                  ))}
                  <ModelCallsCard value={view.max_model_calls} />
                </section>
                <section className="settings-section" id="settings-prices" data-testid="prices" aria-labelledby="settings-prices-title">
                  <div className="settings-section__head">
                    <h2 className="settings-section__title" id="settings-prices-title">
                      Prices
                    </h2>
                    <p className="settings-section__description">
                      USD per million tokens, used for costs and cost budgets. A dated snapshot (<code>gpt-4o-2024-08-06</code>) uses the
                      price of its model. A model with no price shows no cost, and a job cannot have a cost budget on it.
                    </p>
                  </div>
                  <PriceTable rows={view.prices} focus={focus} onFocusPrices={() => setActive('prices')} />
                </section>
                <section className="settings-section" id="settings-trace-export" aria-labelledby="settings-trace-export-title">
                  <div className="settings-section__head">
                    <h2 className="settings-section__title" id="settings-trace-export-title">
                      Trace export
                    </h2>
                    <p className="settings-section__description">
                      Sends every job this app runs to an OpenTelemetry collector when it ends (OTLP/HTTP: Langfuse, Phoenix, Jaeger, the
                      Collector). Imported traces are not sent. Header values are stored like keys and never shown again.
                    </p>
                  </div>
                  <TraceExportSection />
                </section>
                <section className="settings-section" id="settings-mcp" aria-labelledby="settings-mcp-title">
                  <div className="settings-section__head">
                    <h2 className="settings-section__title" id="settings-mcp-title">
                      MCP servers
                    </h2>
                    <p className="settings-section__description">
                      The open project&apos;s MCP servers (<code>.mcp.json</code>, and profiles&apos; <code>mcpServers</code>). Their tools
                      are <code>mcp__server__tool</code> to a profile that lists the server; every call asks for approval unless the profile
                      trusts it. Env values and headers are never shown.
                    </p>
                  </div>
                  <McpServersSection />
                </section>
              </>
            )}
          </div>
        </div>
      </div>
    </div>
  )
}
