import { dialog, type BrowserWindow, type OpenDialogOptions, type SaveDialogOptions } from 'electron'
import type { ExportFormatName } from '../core/api/contract'

/** Asks for a project folder; null when the user cancels. */
export async function chooseFolder(parent: BrowserWindow | null): Promise<string | null> {
  const options: OpenDialogOptions = { title: 'Open Folder', properties: ['openDirectory', 'createDirectory'] }
  const result = parent === null ? await dialog.showOpenDialog(options) : await dialog.showOpenDialog(parent, options)
  return result.canceled ? null : (result.filePaths[0] ?? null)
}

/**
 * Asks for a trace JSONL, or a Claude Code session (`~/.claude/projects/<project>/<session>.jsonl`,
 * whose subagent files are found beside it), to open read-only; null when the user cancels.
 */
export async function chooseTraceFile(parent: BrowserWindow | null): Promise<string | null> {
  const options: OpenDialogOptions = {
    title: 'Open Trace or Claude Code Session',
    properties: ['openFile'],
    filters: [
      { name: 'Arbor trace or Claude Code session (JSONL)', extensions: ['jsonl'] },
      { name: 'All files', extensions: ['*'] },
    ],
  }
  const result = parent === null ? await dialog.showOpenDialog(options) : await dialog.showOpenDialog(parent, options)
  return result.canceled ? null : (result.filePaths[0] ?? null)
}

/** Asks where to save an export, proposing `defaultPath`; null when the user cancels. */
export async function chooseSavePath(
  parent: BrowserWindow | null,
  defaultPath: string,
  format: ExportFormatName = 'jsonl',
): Promise<string | null> {
  const options: SaveDialogOptions = {
    title: 'Export Trace',
    defaultPath,
    filters: [
      format === 'otlp'
        ? { name: 'OTLP JSON (OpenTelemetry)', extensions: ['json'] }
        : { name: 'Arbor trace (JSONL)', extensions: ['jsonl'] },
    ],
    properties: ['createDirectory', 'showOverwriteConfirmation'],
  }
  const result = parent === null ? await dialog.showSaveDialog(options) : await dialog.showSaveDialog(parent, options)
  return result.canceled || result.filePath === '' ? null : result.filePath
}
