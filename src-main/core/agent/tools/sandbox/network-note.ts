/**
 * A command that fails to connect in a sandbox without network gets the usual errors (cannot
 * resolve, unreachable, refused), which look like a flaky network or a server that is down. When
 * the output shows one, the tool result says that the sandbox is why and how the job turns the
 * network on, so the model does not retry or "fix" the code. A refused connection counts too: a
 * server on this machine's localhost is outside the sandbox's own loopback.
 */
export const networkOffNote =
  "[network is off for this job's commands (the sandbox has no network, and this machine's servers, localhost included, are out of reach); the job's allow-network setting turns it on]"

const connectionFailures: RegExp[] = [
  /network is unreachable/i, // bash /dev/tcp, wget, python (errno 101)
  /\bENETUNREACH\b/, // node
  /could not resolve host/i, // curl (exit code 6), git
  /temporary failure in name resolution/i, // glibc (python, ssh, wget)
  /\bEAI_AGAIN\b|getaddrinfo ENOTFOUND/, // node, npm
  /unable to resolve host address/i, // wget
  /connection refused/i, // bash /dev/tcp, python, ssh
  /\bECONNREFUSED\b/, // node
  /curl: \((?:6|7)\)/, // curl: could not resolve, could not connect
]

export function showsConnectionFailure(output: string): boolean {
  return connectionFailures.some((pattern) => pattern.test(output))
}
