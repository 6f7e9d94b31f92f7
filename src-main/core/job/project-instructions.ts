import { closeSync, fstatSync, openSync, readSync } from 'node:fs'
import path from 'node:path'

/**
 * The project's own instructions for agents, as Codex (AGENTS.md) and Claude Code (CLAUDE.md)
 * read them: the first of these files in the project root goes into the root agent's system
 * prompt. Capped, so a huge file cannot fill the context.
 */
export const instructionFiles = ['AGENTS.md', 'CLAUDE.md'] as const
export const maxInstructionBytes = 32 * 1024

export interface ProjectInstructions {
  file: string
  text: string
  /** Bytes of the file; more than `maxInstructionBytes` means the text was cut. */
  bytes: number
  truncated: boolean
}

export function readProjectInstructions(projectDir: string): ProjectInstructions | null {
  for (const file of instructionFiles) {
    let fd: number
    try {
      fd = openSync(path.join(projectDir, file), 'r')
    } catch {
      continue
    }
    try {
      const info = fstatSync(fd)
      if (!info.isFile()) continue
      const buffer = Buffer.alloc(Math.min(info.size, maxInstructionBytes))
      const read = readSync(fd, buffer, 0, buffer.length, 0)
      const text = buffer.subarray(0, read).toString('utf8').trim()
      if (text === '') continue
      return { file, text, bytes: info.size, truncated: info.size > maxInstructionBytes }
    } finally {
      closeSync(fd)
    }
  }
  return null
}

/** The root's system prompt with the instructions appended under a heading that names the file. */
export function withInstructions(systemPrompt: string, instructions: ProjectInstructions): string {
  const cut = instructions.truncated ? `\n\n[${instructions.file} was cut at ${maxInstructionBytes} bytes of ${instructions.bytes}]` : ''
  return `${systemPrompt}\n\n# Project instructions (${instructions.file})\n\nThe project asks every agent working in it to follow these:\n\n${instructions.text}${cut}`
}
