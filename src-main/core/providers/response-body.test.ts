import { describe, expect, it } from 'vitest'
import { summarizeBody } from './response-body'

describe('summarizeBody', () => {
  it.each([
    ['<html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1></body></html>', 'HTML page "502 Bad Gateway"'],
    [
      '<!DOCTYPE html><html><head><style>h1 { color: red }</style></head><body><h1>Upstream\n  down</h1></body></html>',
      'HTML page "Upstream down"',
    ],
    ['{"error":{"message":"model not found","type":"invalid_request_error"}}', 'model not found'],
    ['{"type":"error","error":{"type":"api_error","message":"Internal server error"}}', 'Internal server error'],
    ['{"error":"Bad Gateway"}', 'Bad Gateway'],
    [
      'upstream connect error or disconnect/reset before headers. reset reason: overflow',
      'upstream connect error or disconnect/reset before headers. reset reason: overflow',
    ],
    ['  \n', 'an empty body'],
  ])('%j reads as %j', (body, summary) => {
    expect(summarizeBody(body)).toBe(summary)
  })

  it('cuts a long body to 200 characters', () => {
    expect(summarizeBody('x'.repeat(5000))).toBe(`${'x'.repeat(200)}…`)
  })
})
