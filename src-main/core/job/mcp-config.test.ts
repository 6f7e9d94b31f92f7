import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { describeServer, readMcpJson } from './mcp-config'
import { mcpAllowed, mcpServerOf } from './mcp-names'
import { loadProfiles } from './profiles/load'

/** `.mcp.json` and a profile's `mcpServers` / `mcpTrusted`, read from real files. */

let project: string
beforeEach(async () => {
  project = await mkdtemp(join(tmpdir(), 'arbor-mcp-config-'))
})
afterEach(async () => {
  await rm(project, { recursive: true, force: true })
})

async function write(file: string, text: string): Promise<void> {
  await mkdir(join(project, file, '..'), { recursive: true })
  await writeFile(join(project, file), text)
}

const profile = (front: string) => `---\nname: tooler\ndescription: Uses MCP tools.\n${front}\n---\nUse the tools.\n`

describe('.mcp.json', () => {
  it('reads stdio and http servers, expanding ${VAR} and ${VAR:-default} as Claude Code does', async () => {
    await write(
      '.mcp.json',
      JSON.stringify({
        mcpServers: {
          files: { command: '${BIN:-npx}', args: ['-y', 'server', '${ROOT}'], env: { TOKEN: '${SECRET}' } },
          api: { type: 'http', url: 'https://${HOST:-api.example.com}/mcp?key=x', headers: { Authorization: 'Bearer ${SECRET}' } },
        },
      }),
    )
    const { servers, problems } = readMcpJson(project, { ROOT: '/srv', SECRET: 's3cret' })
    expect(problems).toEqual([])
    expect(servers.files!.config).toEqual({ command: 'npx', args: ['-y', 'server', '/srv'], env: { TOKEN: 's3cret' } })
    expect(servers.api!.config).toEqual({
      type: 'http',
      url: 'https://api.example.com/mcp?key=x',
      headers: { Authorization: 'Bearer s3cret' },
    })
    expect(servers.api!.source).toBe('.mcp.json')
    // What may be shown carries neither env, headers nor the URL's query.
    expect(JSON.stringify([describeServer(servers.files!.config), describeServer(servers.api!.config)])).not.toContain('s3cret')
    expect(describeServer(servers.api!.config)).toEqual({ transport: 'http', target: 'https://api.example.com/mcp' })
    // What Settings shows is the config as written: an expanded value (a token in args) is not in it.
    expect(servers.files!.shown).toEqual({ transport: 'stdio', target: '${BIN:-npx} -y server ${ROOT}' })
  })

  it('names the file and field of what is wrong; the good servers still load', async () => {
    await write('.mcp.json', '{"mcpServers": {')
    expect(readMcpJson(project).problems).toEqual([
      { file: '.mcp.json', field: 'file', message: expect.stringMatching(/^is not valid JSON/) },
    ])

    await write('.mcp.json', JSON.stringify({ servers: {} }))
    expect(readMcpJson(project).problems).toEqual([
      { file: '.mcp.json', field: 'mcpServers', message: expect.stringMatching(/^is required: the file is \{"mcpServers"/) },
    ])

    await write(
      '.mcp.json',
      JSON.stringify({
        mcpServers: {
          good: { command: 'node', args: ['s.js'] },
          noCommand: { args: ['x'] },
          badArgs: { command: 'node', args: 'x' },
          web: { type: 'http', url: 'https://x/${MISSING}' },
          'bad name': { command: 'x' },
          sse: { type: 'sse', url: 'https://x' },
        },
      }),
    )
    const { servers, problems } = readMcpJson(project, {})
    expect(Object.keys(servers)).toEqual(['good'])
    expect(problems.map(({ field }) => field)).toEqual([
      'mcpServers.noCommand.command',
      'mcpServers.badArgs.args',
      'mcpServers.web.url',
      'mcpServers.bad name',
      'mcpServers.sse.type',
    ])
    expect(problems[2]!.message).toContain('${MISSING}, which is not set')
    // The loader reports them as profile-load errors of `.mcp.json`.
    expect(loadProfiles(project, undefined, {}).errors.map((error) => `${error.file} ${error.field}`)).toContain(
      '.mcp.json mcpServers.web.url',
    )
  })
})

describe("a profile's mcpServers", () => {
  it('names .mcp.json servers or defines them inline; its tools default to all of their tools; trusted tools are listed', async () => {
    await write('.mcp.json', JSON.stringify({ mcpServers: { github: { type: 'http', url: 'https://gh/mcp' } } }))
    await write(
      '.arbor/agents/tooler.md',
      profile('mcpServers:\n  - github\n  - local:\n      command: node\n      args: [server.js]\nmcpTrusted: [mcp__local__read]'),
    )
    const loaded = loadProfiles(project, undefined, {})
    expect(loaded.errors).toEqual([])
    const tooler = loaded.profiles.tooler!
    expect(tooler.mcp_servers).toEqual(['github', 'local'])
    expect(tooler.tools).toEqual(expect.arrayContaining(['mcp__github', 'mcp__local', 'read_file']))
    expect(tooler.mcp_trusted).toEqual(['mcp__local__read'])
    expect(loaded.mcpServers?.local).toEqual({
      name: 'local',
      config: { command: 'node', args: ['server.js'] },
      source: '.arbor/agents/tooler.md',
      shown: { transport: 'stdio', target: 'node server.js' },
    })
    expect(loaded.mcpServers?.github?.source).toBe('.mcp.json')
  })

  it('a profile naming an unknown server, or MCP tools of servers it does not list, does not load', async () => {
    await write('.mcp.json', JSON.stringify({ mcpServers: { github: { type: 'http', url: 'https://gh/mcp' } } }))
    await write('.arbor/agents/tooler.md', profile('mcpServers: [gitlab]'))
    await write('.arbor/agents/other.md', profile('mcpServers: [github]\ntools: [read_file, mcp__jira__search]').replace('tooler', 'other'))
    await write('.arbor/agents/third.md', profile('mcpServers: [github]\nmcpTrusted: [bash]').replace('tooler', 'third'))
    const loaded = loadProfiles(project, undefined, {})
    expect(loaded.profiles.tooler).toBeUndefined()
    expect(loaded.profiles.other).toBeUndefined()
    expect(loaded.profiles.third).toBeUndefined()
    expect(loaded.errors).toEqual([
      {
        file: '.arbor/agents/other.md',
        field: 'tools',
        message: expect.stringContaining('"mcp__jira__search" of a server the profile does not list'),
      },
      { file: '.arbor/agents/third.md', field: 'mcpTrusted', message: expect.stringContaining('"bash"') },
      { file: '.arbor/agents/tooler.md', field: 'mcpServers', message: 'unknown MCP server "gitlab"; .mcp.json defines github' },
    ])
  })

  it('an allowlist names a server’s tools one by one, or all as mcp__srv or mcp__srv__*', () => {
    expect(mcpAllowed(['mcp__gh'], 'gh', 'create_issue')).toBe(true)
    expect(mcpAllowed(['mcp__gh__*'], 'gh', 'create_issue')).toBe(true)
    expect(mcpAllowed(['mcp__gh__create_issue'], 'gh', 'create_issue')).toBe(true)
    expect(mcpAllowed(['mcp__gh__create_issue'], 'gh', 'delete_repo')).toBe(false)
    expect(mcpAllowed(['mcp__ghx', 'read_file'], 'gh', 'create_issue')).toBe(false)
    expect(mcpServerOf('mcp__gh__create_issue')).toBe('gh')
    expect(mcpServerOf('bash')).toBeNull()
  })
})
