// What the pages ask of passkeys before any ceremony (is there WebAuthn, autofill, was a
// failure a cancel), in a module of its own: the ceremonies (passkeys.ts) load with the sign-in
// flows, and with them the error classes they create.
import { isKnownError } from "./known-error.js";

/** @simplewebauthn/browser, imported on first use. */
export const browserHelper = (): Promise<typeof import("@simplewebauthn/browser")> => import("@simplewebauthn/browser");

/** True for the failures a person causes by closing the browser's passkey dialog (or its timeout). */
export function isPasskeyCancel(error: unknown): boolean {
  if (!(isKnownError(error, "PASSKEY_WEBAUTHN_ERROR"))) return false;
  const code = (error.details as { code?: unknown }).code;
  return code === "NotAllowedError" || code === "AbortError" || code === "ERROR_CEREMONY_ABORTED";
}

/** Whether this browser can offer passkeys in an input's autofill (conditional mediation). */
export async function passkeyAutofillSupported(): Promise<boolean> {
  if (typeof window === "undefined" || typeof PublicKeyCredential === "undefined") return false;
  const { browserSupportsWebAuthnAutofill } = await browserHelper();
  return browserSupportsWebAuthnAutofill().catch(() => false);
}

/** Whether this browser has WebAuthn at all. */
export function passkeysSupported(): boolean {
  return typeof window !== "undefined" && typeof window.PublicKeyCredential === "function";
}

/** Cancels a pending ceremony (e.g. the autofill request when the page leaves). */
export async function cancelPasskeyCeremony(): Promise<void> {
  const { WebAuthnAbortService } = await browserHelper();
  WebAuthnAbortService.cancelCeremony();
}
