/** Model-written text made safe for a terminal (approvals, errors, log lines). A leaf: main.ts prints errors with it before any command loads. */

// ESC sequences whole (CSI `ESC [ … final`, OSC and the other string sequences up to BEL or
// `ESC \`, two-character escapes), and their 8-bit C1 forms (CSI U+009B, OSC U+009D …).
const escapeSequences = new RegExp(
  [
    '(?:\\u001b\\[|\\u009b)[0-?]*[ -/]*[@-~]?',
    '(?:\\u001b[\\]PX^_]|[\\u0090\\u0098\\u009d-\\u009f])[^\\u0007\\u001b\\u009c]*(?:\\u0007|\\u001b\\\\|\\u009c)?',
    '\\u001b[ -/]*[0-~]?',
  ].join('|'),
  'g',
)

// What is left: C0 controls but tab and newline, DEL, C1 controls, and the bidi embeddings,
// overrides and isolates (U+202A–U+202E, U+2066–U+2069) with the marks U+200E, U+200F, U+061C.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const controls = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/g

/**
 * Text a model wrote, safe to print on a terminal: escape sequences and control characters are
 * removed (CR, BEL, backspace, ANSI colours and cursor moves, C1, bidi overrides), tabs become
 * spaces; newlines stay for the caller to lay out.
 */
export function printable(text: string): string {
  return text.replace(escapeSequences, '').replace(controls, '').replaceAll('\t', ' ')
}
