import hljs from 'highlight.js/lib/core'
import bash from 'highlight.js/lib/languages/bash'
import css from 'highlight.js/lib/languages/css'
import go from 'highlight.js/lib/languages/go'
import java from 'highlight.js/lib/languages/java'
import javascript from 'highlight.js/lib/languages/javascript'
import json from 'highlight.js/lib/languages/json'
import markdown from 'highlight.js/lib/languages/markdown'
import python from 'highlight.js/lib/languages/python'
import rust from 'highlight.js/lib/languages/rust'
import typescript from 'highlight.js/lib/languages/typescript'
import xml from 'highlight.js/lib/languages/xml'
import yaml from 'highlight.js/lib/languages/yaml'

/**
 * Syntax colours for the diff view: highlight.js's core with the few languages agents edit most,
 * chosen by the file's extension. Its output is HTML with `hljs-*` classes (the input escaped),
 * coloured by styles/changes.css: no inline styles, so the CSP needs nothing new.
 */
const languages = { bash, css, go, java, javascript, json, markdown, python, rust, typescript, xml, yaml }
for (const [name, language] of Object.entries(languages)) hljs.registerLanguage(name, language)

const byExtension: Record<string, keyof typeof languages> = {
  sh: 'bash',
  bash: 'bash',
  css: 'css',
  go: 'go',
  java: 'java',
  js: 'javascript',
  jsx: 'javascript',
  mjs: 'javascript',
  cjs: 'javascript',
  json: 'json',
  md: 'markdown',
  py: 'python',
  rs: 'rust',
  ts: 'typescript',
  tsx: 'typescript',
  mts: 'typescript',
  html: 'xml',
  xml: 'xml',
  svg: 'xml',
  yml: 'yaml',
  yaml: 'yaml',
}

/** The language of a path, or null for one without colours. */
export function languageOf(path: string): string | null {
  const extension = /\.([a-z0-9]+)$/i.exec(path)?.[1]?.toLowerCase()
  return extension ? (byExtension[extension] ?? null) : null
}

const escapes: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }
const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (character) => escapes[character]!)

/** One line as HTML: highlighted in `language`, or only escaped. */
export function highlightLine(text: string, language: string | null): string {
  if (!language) return escapeHtml(text)
  return hljs.highlight(text, { language, ignoreIllegals: true }).value
}
