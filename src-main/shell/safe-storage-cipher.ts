import { safeStorage } from 'electron'
import type { KeyCipher } from '../core/settings/key-store'

/**
 * Keys entered in the desktop app are sealed with Electron's safeStorage (Keychain on macOS, DPAPI
 * on Windows, the Secret Service / KWallet on Linux). On Linux without a keyring safeStorage falls
 * back to a fixed key ('basic_text'), which is no protection: then keys are not stored at all and
 * settings say to use the environment.
 */
export const safeStorageCipher: KeyCipher = {
  available: () =>
    safeStorage.isEncryptionAvailable() && (process.platform !== 'linux' || safeStorage.getSelectedStorageBackend() !== 'basic_text'),
  encrypt: (plain) => safeStorage.encryptString(plain),
  decrypt: (sealed) => safeStorage.decryptString(sealed),
  label: 'encrypted with the OS keychain (Electron safeStorage)',
}
