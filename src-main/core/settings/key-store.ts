import { chmodSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import type { KeyedProviderId } from '../api/job-form'

/**
 * What the key store holds: a provider's API key, or the value of a header sent with traces
 * (`trace_header:Authorization`), which often carries a collector's credentials.
 */
export type SecretId = KeyedProviderId | `trace_header:${string}`

export const traceHeaderSecret = (name: string): SecretId => `trace_header:${name.toLowerCase()}`

/**
 * Where API keys and other secrets entered in settings are kept. A secret is write-only from the
 * UI's side: nothing here is ever sent to a renderer, stored in the trace or logged; `describe`
 * is what settings show.
 */
export interface KeyStore {
  get(id: SecretId): string | null
  set(id: SecretId, secret: string): void
  clear(id: SecretId): void
  /** Every secret stored, provider keys and trace headers alike: what the redactor takes out everywhere. */
  secrets(): string[]
  readonly encrypted: boolean
  /** Can keys be stored at all (false: e.g. no OS keyring for safeStorage). */
  readonly available: boolean
  /** For settings: where the keys are and how they are protected. */
  readonly description: string
}

/** Turns a key into what is written to disk and back; the desktop app passes Electron's safeStorage. */
export interface KeyCipher {
  available(): boolean
  encrypt(plain: string): Buffer
  decrypt(sealed: Buffer): string
  /** e.g. "encrypted with the OS keychain (safeStorage)". */
  readonly label: string
}

type KeyFile = Partial<Record<SecretId, string>>

/**
 * Keys in one JSON file, created with mode 0600 (only the user can read it) and replaced
 * atomically. With a cipher, each key is stored sealed (base64); without one (the CLI and
 * `serve`) in plain text, and settings say so.
 */
export class FileKeyStore implements KeyStore {
  constructor(
    private readonly file: string,
    private readonly cipher: KeyCipher | null = null,
  ) {}

  get encrypted(): boolean {
    return this.cipher !== null
  }

  get available(): boolean {
    return this.cipher === null || this.cipher.available()
  }

  get description(): string {
    if (this.cipher) return `${this.file} (${this.cipher.label})`
    return `${this.file} (not encrypted; readable only by you, mode 0600)`
  }

  get(id: SecretId): string | null {
    const stored = this.read()[id]
    if (!stored) return null
    if (!this.cipher) return stored
    try {
      return this.cipher.decrypt(Buffer.from(stored, 'base64'))
    } catch {
      return null
    }
  }

  set(id: SecretId, secret: string): void {
    if (!this.available) throw new Error('keys cannot be stored here: no OS keyring is available; set the key in the environment instead')
    const keys = this.read()
    keys[id] = this.cipher ? this.cipher.encrypt(secret).toString('base64') : secret
    this.write(keys)
  }

  clear(id: SecretId): void {
    const keys = this.read()
    if (!(id in keys)) return
    delete keys[id]
    this.write(keys)
  }

  secrets(): string[] {
    const ids = Object.keys(this.read()) as SecretId[]
    return ids.map((id) => this.get(id)).filter((secret): secret is string => secret !== null)
  }

  private read(): KeyFile {
    let text: string
    try {
      text = readFileSync(this.file, 'utf8')
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {}
      throw error
    }
    // A file others can read was not written by us: tighten it before trusting it.
    if ((statSync(this.file).mode & 0o077) !== 0) chmodSync(this.file, 0o600)
    try {
      const parsed = JSON.parse(text) as unknown
      return parsed && typeof parsed === 'object' ? (parsed as KeyFile) : {}
    } catch {
      return {}
    }
  }

  private write(keys: KeyFile): void {
    mkdirSync(path.dirname(this.file), { recursive: true, mode: 0o700 })
    const temporary = `${this.file}.${process.pid}.tmp`
    writeFileSync(temporary, JSON.stringify(keys, null, 2) + '\n', { mode: 0o600 })
    chmodSync(temporary, 0o600)
    renameSync(temporary, this.file)
  }
}

/** What settings may show of a key: that it is set, and its last four characters. */
export const lastFour = (key: string): string => key.slice(-4)
