// A test fixture, `node --import tsx --import ./refuse-commands.mjs …`: a resolve hook that fails any
// import of a CLI command's module or of zod, so a test can show that --help, --version and a
// usage error answer without loading them (src-main/cli/main.ts imports each command when it runs).
import { register } from 'node:module'

const hook = `export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context)
  if (/[\\\\/]cli[\\\\/]commands[\\\\/]|[\\\\/]node_modules[\\\\/]zod[\\\\/]/.test(resolved.url)) throw new Error('refused to load ' + resolved.url)
  return resolved
}`
register(`data:text/javascript,${encodeURIComponent(hook)}`)
