import { describe, expect, it } from 'vitest'
import { contentSecurityPolicy, createAppUrlCheck } from './app-url'

describe('createAppUrlCheck', () => {
  const isBuiltApp = createAppUrlCheck('file:///opt/arbor/out/renderer/index.html')

  it('accepts the built renderer page, with or without a hash or query', () => {
    expect(isBuiltApp('file:///opt/arbor/out/renderer/index.html')).toBe(true)
    expect(isBuiltApp('file:///opt/arbor/out/renderer/index.html#/job/1')).toBe(true)
    expect(isBuiltApp('file:///opt/arbor/out/renderer/index.html?x=1')).toBe(true)
  })

  it('refuses any other file, remote page or garbage', () => {
    expect(isBuiltApp('file:///opt/arbor/out/renderer/other.html')).toBe(false)
    expect(isBuiltApp('file:///etc/passwd')).toBe(false)
    expect(isBuiltApp('https://example.com/opt/arbor/out/renderer/index.html')).toBe(false)
    expect(isBuiltApp('about:blank')).toBe(false)
    expect(isBuiltApp('not a url')).toBe(false)
    expect(isBuiltApp('')).toBe(false)
  })

  it('accepts the whole dev server origin in development, and nothing else', () => {
    const isDevApp = createAppUrlCheck('http://localhost:5173')
    expect(isDevApp('http://localhost:5173/')).toBe(true)
    expect(isDevApp('http://localhost:5173/src/main.tsx')).toBe(true)
    expect(isDevApp('http://localhost:5174/')).toBe(false)
    expect(isDevApp('http://127.0.0.1:5173/')).toBe(false)
    expect(isDevApp('file:///opt/arbor/out/renderer/index.html')).toBe(false)
  })
})

describe('contentSecurityPolicy', () => {
  it('allows only the app itself in production', () => {
    expect(contentSecurityPolicy()).toBe(
      "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'",
    )
  })

  it("adds the dev server's HMR socket and inline preamble in development", () => {
    const policy = contentSecurityPolicy('http://localhost:5173')
    expect(policy).toContain("script-src 'self' 'unsafe-inline'")
    expect(policy).toContain("connect-src 'self' ws://localhost:5173")
  })
})
