import { BrowserWindow, type Session, type WebContents } from 'electron'
import type { AppUrlCheck } from './app-url'

/**
 * The one app window and the guards every web contents gets. The renderer runs isolated and
 * sandboxed with no Node; it reaches the engine only through the preload's `window.arbor`.
 */

/** `icon`: the window's icon (resources/icon.png); without it Electron shows its own. */
export function createMainWindow(options: { preload: string; url: string; icon?: string }): BrowserWindow {
  const window = new BrowserWindow({
    title: 'Arbor',
    icon: options.icon,
    width: 1440,
    height: 900,
    minWidth: 900,
    minHeight: 600,
    show: false,
    webPreferences: {
      preload: options.preload,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      webviewTag: false,
    },
  })
  window.once('ready-to-show', () => window.show())
  void window.loadURL(options.url)
  return window
}

/** Keeps any web contents on the app's own pages: no navigation away, no new windows. */
export function guardWebContents(contents: WebContents, isAppUrl: AppUrlCheck): void {
  contents.on('will-navigate', (event) => {
    if (!isAppUrl(event.url)) event.preventDefault()
  })
  contents.on('will-redirect', (event) => {
    if (!isAppUrl(event.url)) event.preventDefault()
  })
  contents.on('will-attach-webview', (event) => event.preventDefault())
  contents.setWindowOpenHandler(() => ({ action: 'deny' }))
}

/** A CSP response header on every response, and no permission is ever granted. */
export function hardenSession(session: Session, contentSecurityPolicy: string): void {
  session.webRequest.onHeadersReceived((details, callback) => {
    callback({ responseHeaders: { ...details.responseHeaders, 'Content-Security-Policy': [contentSecurityPolicy] } })
  })
  session.setPermissionRequestHandler((_webContents, _permission, callback) => callback(false))
}
