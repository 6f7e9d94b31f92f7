import { describe, expect, it } from 'vitest'
import { showsConnectionFailure } from './network-note'

describe('showsConnectionFailure', () => {
  // What real tools print when there is no network (measured in bubblewrap with --unshare-net).
  it.each([
    'curl: (6) Could not resolve host: example.com',
    "curl: (7) Failed to connect to 127.0.0.1 port 8080 after 0 ms: Couldn't connect to server",
    'bash: connect: Network is unreachable',
    'bash: line 1: /dev/tcp/127.0.0.1/9: Connection refused',
    'Error: getaddrinfo EAI_AGAIN registry.npmjs.org',
    'Error: getaddrinfo ENOTFOUND example.com',
    'Error: connect ECONNREFUSED 127.0.0.1:5432',
    'connect ENETUNREACH 1.1.1.1:80 - Local (0.0.0.0:0)',
    "fatal: unable to access 'https://github.com/x/y/': Could not resolve host: github.com",
    'urllib.error.URLError: <urlopen error [Errno -3] Temporary failure in name resolution>',
    'wget: unable to resolve host address ‘example.com’',
    'npm error code EAI_AGAIN',
  ])('sees a connection failure in %j', (output) => {
    expect(showsConnectionFailure(`some output\n${output}\nmore`)).toBe(true)
  })

  it.each(['exit code: 0', 'Tests 12 passed', 'refused to overwrite the file', 'ECONNRESET by peer', 'resolved 3 hosts'])(
    'sees none in %j',
    (output) => {
      expect(showsConnectionFailure(output)).toBe(false)
    },
  )
})
