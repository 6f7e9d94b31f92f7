import { describe, expect, it } from 'vitest'
import { draftFromView, lastSendText, traceExportRequest } from './trace-export-model'

describe('the trace export section', () => {
  it('sends saved headers without a value (kept), replaced and new ones with theirs, and drops blank rows', () => {
    const draft = draftFromView({
      endpoint: 'http://localhost:4318',
      url: 'http://localhost:4318/v1/traces',
      enabled: true,
      headers: [
        { name: 'Authorization', set: true },
        { name: 'x-team', set: true },
      ],
      last_send: null,
    })
    draft.headers[1]!.value = ' blue '
    draft.headers.push({ name: 'x-new', value: 'v', saved: false }, { name: '', value: '', saved: false })
    expect(traceExportRequest(draft)).toEqual({
      ok: true,
      input: {
        endpoint: 'http://localhost:4318',
        enabled: true,
        headers: [{ name: 'Authorization' }, { name: 'x-team', value: 'blue' }, { name: 'x-new', value: 'v' }],
      },
    })
  })

  it('refuses a draft the engine would refuse, in words', () => {
    const base = { endpoint: 'http://localhost:4318/v1/traces', enabled: true, headers: [] }
    expect(traceExportRequest({ ...base, endpoint: 'localhost:4318' })).toMatchObject({
      ok: false,
      error: expect.stringContaining('http://'),
    })
    expect(traceExportRequest({ ...base, endpoint: '' })).toEqual({ ok: false, error: 'sending needs an endpoint' })
    expect(traceExportRequest({ ...base, headers: [{ name: 'x-new', value: '', saved: false }] })).toEqual({
      ok: false,
      error: 'header x-new needs a value',
    })
    expect(traceExportRequest({ ...base, headers: [{ name: '', value: 'secret', saved: false }] })).toEqual({
      ok: false,
      error: 'a header needs a name',
    })
    expect(traceExportRequest({ ...base, headers: [{ name: 'bad name', value: 'v', saved: false }] })).toEqual({
      ok: false,
      error: 'not a valid header name',
    })
  })

  it('says how the last send went', () => {
    const view = {
      endpoint: null,
      url: null,
      enabled: false,
      headers: [],
      last_send: { job_id: 'job-7', ok: false, message: 'trace not sent: HTTP 401', at: '2026-01-01T10:00:00.000Z' },
    }
    expect(lastSendText(view)).toMatchObject({
      ok: false,
      text: expect.stringMatching(/^Last send \(job job-7, .+\): trace not sent: HTTP 401$/),
    })
    expect(lastSendText({ ...view, last_send: null })).toBeNull()
  })
})
