import { describe, expect, it } from 'vitest'
import { newOwnerIdentity, ownerVerdict, pidAlive, type LivenessCheck, type RecordedOwner } from './owner'
import { useSleepers } from './testing/sleeper'

const self = { token: 'self-token', pid: 4242, host: 'here' }
const now = new Date('2025-03-01T10:00:00.000Z')
const secondsAgo = (seconds: number): string => new Date(now.getTime() - seconds * 1000).toISOString()
const alive = new Set([1111])
const check: LivenessCheck = { self, now, staleAfterMs: 15_000, pidAlive: (pid) => alive.has(pid) }
const owner = (fields: Partial<RecordedOwner>): RecordedOwner => ({
  token: 'other-token',
  pid: 1111,
  host: 'here',
  heartbeat_at: secondsAgo(2),
  ...fields,
})

describe('ownerVerdict', () => {
  it.each([
    ['a live pid with a fresh heartbeat', owner({}), { live: true }],
    ['this process itself', owner({ token: 'self-token', pid: 4242, heartbeat_at: secondsAgo(3600) }), { live: true }],
    [
      'no owner recorded (a job from before owners)',
      owner({ token: null, pid: null, host: null, heartbeat_at: null }),
      { live: false, reason: 'unknown' },
    ],
    ['a pid that is gone, heartbeat still fresh', owner({ pid: 2222 }), { live: false, reason: 'exited' }],
    [
      "this process's pid under another token (the old owner's pid was reused by us)",
      owner({ pid: 4242 }),
      { live: false, reason: 'exited' },
    ],
    ['a live pid whose heartbeat is stale (a reused pid)', owner({ heartbeat_at: secondsAgo(16) }), { live: false, reason: 'silent' }],
    ['a live pid, heartbeat just inside the limit', owner({ heartbeat_at: secondsAgo(15) }), { live: true }],
    ['no heartbeat at all', owner({ heartbeat_at: null }), { live: false, reason: 'silent' }],
    ['a heartbeat from the future (a clock set back)', owner({ heartbeat_at: secondsAgo(-600) }), { live: true }],
    ['another host, fresh heartbeat: its pid means nothing here', owner({ host: 'elsewhere', pid: 2222 }), { live: true }],
    [
      'another host, stale heartbeat',
      owner({ host: 'elsewhere', pid: 1111, heartbeat_at: secondsAgo(60) }),
      { live: false, reason: 'silent' },
    ],
  ] as const)('%s', (_name, recorded, verdict) => {
    expect(ownerVerdict(recorded, check)).toEqual(verdict)
  })

  it('without the heartbeat rule (the periodic sweep), only a gone pid counts', () => {
    const periodic = { ...check, heartbeatCounts: false }
    expect(ownerVerdict(owner({ heartbeat_at: secondsAgo(3600) }), periodic)).toEqual({ live: true })
    expect(ownerVerdict(owner({ pid: 2222, heartbeat_at: secondsAgo(3600) }), periodic)).toEqual({ live: false, reason: 'exited' })
    expect(ownerVerdict(owner({ token: null }), periodic)).toEqual({ live: false, reason: 'unknown' })
  })
})

describe('pidAlive', () => {
  const sleeper = useSleepers()

  it('is true for a running process and false once it has exited', async () => {
    const sleeping = await sleeper()
    expect(pidAlive(sleeping.pid)).toBe(true)
    await sleeping.kill()
    expect(pidAlive(sleeping.pid)).toBe(false)
  })

  it('never signals a process group: 0 and negative pids are not alive', () => {
    expect(pidAlive(0)).toBe(false)
    expect(pidAlive(-1)).toBe(false)
    expect(pidAlive(1.5)).toBe(false)
  })

  it('a new identity is this process, with a token of its own each time', () => {
    const first = newOwnerIdentity()
    expect(first.pid).toBe(process.pid)
    expect(pidAlive(first.pid)).toBe(true)
    expect(newOwnerIdentity().token).not.toBe(first.token)
  })
})
