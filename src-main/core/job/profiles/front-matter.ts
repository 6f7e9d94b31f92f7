import { YAMLParseError, parse } from 'yaml'

/** A Markdown file split into its YAML front matter (a mapping) and its body. */
export type FrontMatter = { ok: true; data: Record<string, unknown>; body: string } | { ok: false; message: string }

const fence = /^---[ \t]*$/

/**
 * Reads `---` / YAML / `---` at the top of a Markdown file (the format of Claude Code's agent
 * files). Line numbers in errors count from the top of the file.
 */
export function parseFrontMatter(text: string): FrontMatter {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/)
  if (!fence.test(lines[0] ?? '')) return { ok: false, message: 'the file must start with a "---" line opening the YAML front matter' }
  const close = lines.findIndex((line, index) => index > 0 && fence.test(line))
  if (close < 0) return { ok: false, message: 'the YAML front matter is not closed by a "---" line' }
  let data: unknown
  try {
    data = parse(lines.slice(1, close).join('\n'))
  } catch (error) {
    return { ok: false, message: yamlErrorMessage(error, 1) }
  }
  if (data === null || data === undefined) return { ok: false, message: 'the front matter is empty (name and description are required)' }
  if (typeof data !== 'object' || Array.isArray(data)) return { ok: false, message: 'the front matter must be a YAML mapping of fields' }
  return {
    ok: true,
    data: data as Record<string, unknown>,
    body: lines
      .slice(close + 1)
      .join('\n')
      .trim(),
  }
}

function yamlErrorMessage(error: unknown, lineOffset: number): string {
  if (!(error instanceof YAMLParseError)) return `invalid YAML: ${error instanceof Error ? error.message : String(error)}`
  const reason = (error.message.split('\n')[0] ?? '').replace(/ at line \d+, column \d+:?$/, '')
  const position = error.linePos?.[0]
  return position ? `invalid YAML at line ${position.line + lineOffset}: ${reason}` : `invalid YAML: ${reason}`
}
