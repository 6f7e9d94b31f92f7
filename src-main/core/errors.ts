/**
 * The one base of Arbor's errors: a stable `code` a caller may switch on, and `isInstance`, which
 * recognises an error by a `Symbol.for` marker rather than by its constructor (vercel/ai's
 * `AISDKError` does the same). `instanceof` fails when the error comes from another copy of the
 * class: another bundle (the agent's, the CLI's), a test's module graph, another realm. A
 * `Symbol.for` key is the same in all of them.
 *
 * Each class names its own marker, `static override readonly marker: symbol = Symbol.for('arbor.error.…')`,
 * and its instances carry every marker of their class chain: a `ProviderError` is recognised by
 * `ProviderError.isInstance` and by `ArborError.isInstance`.
 *
 * Across a process, IPC or WebSocket boundary an error travels as data, `{code, message}`
 * (api/contract.ts `ApiError`): a structured clone or JSON keeps neither the class nor the marker.
 */
export class ArborError<Code extends string = string> extends Error {
  static readonly marker: symbol = Symbol.for('arbor.error')

  readonly code: Code

  constructor(code: Code, message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.code = code
    this.name = 'ArborError'
    for (let type: unknown = new.target; type !== Error && typeof type === 'function'; type = Object.getPrototypeOf(type)) {
      if (Object.hasOwn(type, 'marker')) Object.defineProperty(this, (type as typeof ArborError).marker, { value: true })
    }
  }

  /** Whether `value` is an error of this class (or a subclass), from whichever copy of the class made it. */
  static isInstance<Instance>(
    this: { readonly marker: symbol; readonly name: string; prototype: Instance },
    value: unknown,
  ): value is Instance {
    // A subclass without a marker of its own would answer for its parent's errors too.
    if (!Object.hasOwn(this, 'marker')) throw new TypeError(`${this.name} needs a marker of its own for isInstance`)
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[this.marker] === true
  }
}
