import { Menu, type MenuItemConstructorOptions } from 'electron'

/** The application menu: File ▸ Open Folder… and Open Trace…, plus the platform's standard menus. */
export function installApplicationMenu(actions: { openFolder: () => void; openTrace: () => void }): void {
  const isMac = process.platform === 'darwin'
  const template: MenuItemConstructorOptions[] = [
    ...(isMac ? [{ role: 'appMenu' } as const] : []),
    {
      label: 'File',
      submenu: [
        { label: 'Open Folder…', accelerator: 'CmdOrCtrl+O', click: () => actions.openFolder() },
        { label: 'Open Trace…', accelerator: 'CmdOrCtrl+Shift+O', click: () => actions.openTrace() },
        { type: 'separator' },
        isMac ? { role: 'close' } : { role: 'quit' },
      ],
    },
    { role: 'editMenu' },
    { role: 'viewMenu' },
    { role: 'windowMenu' },
  ]
  Menu.setApplicationMenu(Menu.buildFromTemplate(template))
}
