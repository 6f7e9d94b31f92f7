import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { builtinProfiles } from '../profiles'
import { loadProfiles } from './load'
import { readProfileFile } from './profile-file'

let project: string
beforeEach(async () => {
  project = await mkdtemp(join(tmpdir(), 'arbor-profiles-'))
})
afterEach(async () => {
  await rm(project, { recursive: true, force: true })
})

async function write(file: string, text: string): Promise<void> {
  await mkdir(join(project, file, '..'), { recursive: true })
  await writeFile(join(project, file), text)
}

const reviewer = `---
name: reviewer
description: Reviews a diff and lists problems.
tools: [read_file, search]
model: light
max_steps: 8
context_token_budget: 20000
total_token_budget: null
read_only: true
---

You review code. Report problems with file:line.
`

const claudeReviewer = `---
name: code-reviewer
description: Expert code review specialist. Use proactively after writing code.
tools: Read, Grep, Glob, LS, Bash, WebFetch, mcp__github__create_issue
model: inherit
color: blue
---
You are a senior code reviewer.
`

describe('loadProfiles', () => {
  it('gives the built-ins when the project has no profile folders', () => {
    expect(loadProfiles(project)).toEqual({ profiles: builtinProfiles, errors: [], warnings: [] })
  })

  it('loads an .arbor profile with every field', async () => {
    await write('.arbor/agents/reviewer.md', reviewer)
    await write('.arbor/agents/notes.txt', 'not a profile')
    const loaded = loadProfiles(project)
    expect(loaded.errors).toEqual([])
    expect(loaded.warnings).toEqual([])
    expect(Object.keys(loaded.profiles)).toEqual(['general', 'explore', 'worker', 'reviewer'])
    expect(loaded.profiles.reviewer).toEqual({
      name: 'reviewer',
      description: 'Reviews a diff and lists problems.',
      system_prompt: 'You review code. Report problems with file:line.',
      tools: ['read_file', 'search', 'attempt_completion'],
      max_steps: 8,
      context_token_budget: 20_000,
      total_token_budget: null,
      model: 'light',
      result_contract: 'text',
      can_delegate: false,
      read_only: true,
    })
  })

  it("reads isolation: worktree (Claude Code's field) from either folder, and refuses another value naming the field", async () => {
    const isolated = (name: string, isolation: string) =>
      `---\nname: ${name}\ndescription: Works on its own branch.\nisolation: ${isolation}\n---\n\nYou change code on your own branch.\n`
    await write('.arbor/agents/brancher.md', isolated('brancher', 'worktree'))
    await write('.claude/agents/claude-brancher.md', isolated('claude-brancher', 'worktree'))
    await write('.arbor/agents/odd.md', isolated('odd', 'sandbox'))
    const loaded = loadProfiles(project)
    expect(loaded.profiles.brancher?.isolation).toBe('worktree')
    expect(loaded.profiles['claude-brancher']?.isolation).toBe('worktree')
    expect(loaded.profiles.reviewer).toBeUndefined()
    expect(loaded.profiles.odd).toBeUndefined()
    expect(loaded.errors).toEqual([{ file: '.arbor/agents/odd.md', field: 'isolation', message: 'must be worktree (or left out)' }])
    expect(loaded.warnings).toEqual([])
  })

  it('loads a Claude Code agent: tool names mapped, others ignored with a warning, inherit as main', async () => {
    await write('.claude/agents/code-reviewer.md', claudeReviewer)
    const loaded = loadProfiles(project)
    expect(loaded.errors).toEqual([])
    expect(loaded.profiles['code-reviewer']).toMatchObject({
      description: 'Expert code review specialist. Use proactively after writing code.',
      system_prompt: 'You are a senior code reviewer.',
      tools: ['read_file', 'search', 'list_files', 'bash', 'attempt_completion'],
      model: 'main',
      result_contract: 'text',
      can_delegate: false,
      max_steps: builtinProfiles.worker!.max_steps,
    })
    expect(loaded.warnings).toEqual([
      {
        file: '.claude/agents/code-reviewer.md',
        message: 'tool "WebFetch", "mcp__github__create_issue" has no Arbor equivalent and is ignored',
      },
    ])
  })

  it('reports each broken file with its file and field, and loads the others', async () => {
    await write('.arbor/agents/reviewer.md', reviewer)
    await write('.claude/agents/code-reviewer.md', claudeReviewer)
    await write('.arbor/agents/bad-yaml.md', '---\nname: x\ndescription: [unclosed\n---\nbody\n')
    await write('.arbor/agents/no-description.md', '---\nname: quiet\n---\nbody\n')
    await write('.arbor/agents/steps.md', '---\nname: steps\ndescription: d\nmax_steps: many\ncan_delegate: "yes"\n---\nbody\n')
    await write('.arbor/agents/writer.md', '---\nname: writer\ndescription: d\nresult: explore\ntools: read_file, write_file\n---\nbody\n')
    await write('.arbor/agents/teleporter.md', '---\nname: teleporter\ndescription: d\ntools: [read_file, teleport]\n---\nbody\n')
    await write('.arbor/agents/empty.md', '---\nname: empty\ndescription: d\n---\n\n')
    await write('.arbor/agents/plain.md', '# Just Markdown\n')
    await write('.claude/agents/delegator.md', '---\nname: delegator\ndescription: d\ntools: Read, Task\n---\nbody\n')

    const loaded = loadProfiles(project)
    expect(Object.keys(loaded.profiles)).toEqual(['general', 'explore', 'worker', 'code-reviewer', 'reviewer'])
    expect(loaded.errors).toEqual([
      {
        file: '.claude/agents/delegator.md',
        field: 'tools',
        message: 'lists "task" but the profile may not delegate (set can_delegate: true, or remove task)',
      },
      { file: '.arbor/agents/bad-yaml.md', field: 'front matter', message: expect.stringMatching(/^invalid YAML at line [34]: /) },
      { file: '.arbor/agents/empty.md', field: 'body', message: 'the system prompt (the Markdown after the front matter) is empty' },
      { file: '.arbor/agents/no-description.md', field: 'description', message: 'is required' },
      {
        file: '.arbor/agents/plain.md',
        field: 'front matter',
        message: 'the file must start with a "---" line opening the YAML front matter',
      },
      { file: '.arbor/agents/steps.md', field: 'max_steps', message: 'must be a positive integer' },
      { file: '.arbor/agents/steps.md', field: 'can_delegate', message: 'must be true or false' },
      {
        file: '.arbor/agents/teleporter.md',
        field: 'tools',
        message: expect.stringMatching(/^unknown tool "teleport"; known tools: read_file, /),
      },
      {
        file: '.arbor/agents/writer.md',
        field: 'tools',
        message: 'is read-only (its result contract is explore) but lists the writing tool "write_file"',
      },
    ])
  })

  it('lets a user profile replace a built-in or a Claude Code one of the same name, with a warning', async () => {
    await write('.arbor/agents/explore.md', '---\nname: explore\ndescription: My explorer.\nresult: explore\n---\nExplore my way.\n')
    await write('.claude/agents/helper.md', '---\nname: helper\ndescription: From Claude.\n---\nClaude prompt.\n')
    await write('.arbor/agents/helper.md', '---\nname: helper\ndescription: From Arbor.\n---\nArbor prompt.\n')
    await write('.arbor/agents/helper2.md', '---\nname: helper\ndescription: Again.\n---\nAgain.\n')
    const loaded = loadProfiles(project)
    expect(loaded.profiles.explore).toMatchObject({
      description: 'My explorer.',
      tools: ['read_file', 'list_files', 'search', 'attempt_completion'],
      model: 'light',
      max_steps: 12,
      context_token_budget: 16_000,
      total_token_budget: 32_000,
    })
    expect(loaded.profiles.helper).toMatchObject({ description: 'From Arbor.', system_prompt: 'Arbor prompt.' })
    expect(loaded.warnings).toEqual([
      { file: '.arbor/agents/explore.md', message: 'profile "explore" replaces the built-in profile of that name' },
      { file: '.arbor/agents/helper.md', message: 'profile "helper" replaces the one in .claude/agents/helper.md' },
    ])
    expect(loaded.errors).toEqual([
      { file: '.arbor/agents/helper2.md', field: 'name', message: 'profile "helper" is already defined in .arbor/agents/helper.md' },
    ])
  })
})

describe('readProfileFile', () => {
  it('gives a delegating profile task by default, and reads CRLF files', () => {
    const read = readProfileFile('---\r\nname: lead\r\ndescription: d\r\ncan_delegate: true\r\n---\r\nLead.\r\n', 'arbor')
    expect(read.errors).toEqual([])
    expect(read.profile?.tools).toContain('task')
    expect(read.profile?.system_prompt).toBe('Lead.')
  })

  it('reads Claude Code model aliases as main or light, and warns of unknown fields in .arbor files', () => {
    const claude = readProfileFile('---\nname: quick\ndescription: d\nmodel: haiku\n---\nQuick.\n', 'claude')
    expect(claude).toMatchObject({ profile: { model: 'light' }, warnings: ['model "haiku" is read as the light model'] })
    const arbor = readProfileFile('---\nname: quick\ndescription: d\nmodel: gpt-4o-mini\nresult_contract: text\n---\nQuick.\n', 'arbor')
    expect(arbor.profile?.model).toBe('gpt-4o-mini')
    expect(arbor.warnings).toEqual([
      expect.stringMatching(/^unknown field "result_contract" ignored; the fields are name, description, tools, /),
    ])
  })
})
