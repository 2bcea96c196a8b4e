// Passkeys (service-api C4 "Passkey", 5 "Passkey and WebAuthn"; service-api A5.4.4, A6.7, A7.6): get options from
// the service, put the page's hostname where the placeholder RP id is, run the browser ceremony
// with @simplewebauthn/browser (imported on first use, so bundles that never use passkeys do not
// carry it), send the result.
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from "@simplewebauthn/browser";
import { PasskeyAuthenticationFailed, PasskeyRegistrationFailed, PasskeyWebauthnError } from "./errors.js";
import { KnownError } from "./known-error.js";
import { browserHelper } from "./passkey-support.js";

export { cancelPasskeyCeremony, isPasskeyCancel, passkeyAutofillSupported, passkeysSupported } from "./passkey-support.js";

/** The relying-party id the service puts in passkey options; the client replaces it (7.6). */
export const PASSKEY_RP_PLACEHOLDER = "THIS_VALUE_WILL_BE_REPLACED.example.com";

/** What the service answers to initiate-passkey-registration / -authentication. */
export interface PasskeyChallenge<Options> {
  options_json: Options;
  code: string;
}

type Ceremony = "registration" | "authentication";

const failure = (ceremony: Ceremony, message: string) =>
  ceremony === "registration" ? new PasskeyRegistrationFailed({ message }) : new PasskeyAuthenticationFailed({ message });

/**
 * The hostname a passkey is for: a valid domain name or "localhost" (service-api C5). An IP address or
 * anything else cannot be a WebAuthn relying party.
 */
export function passkeyHostname(hostname: string, ceremony: Ceremony): string {
  const host = hostname.toLowerCase();
  const label = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;
  const labels = host.split(".");
  const isDomain = host.length <= 253 && labels.length >= 2 && labels.every((l) => label.test(l)) && !/^\d+$/.test(labels.at(-1)!);
  if (host === "localhost" || isDomain) return host;
  throw failure(ceremony, `Passkeys need a page served from a domain name or localhost, not "${hostname}".`);
}

/** Registration options with the page's hostname as RP id; checks the placeholder and the user id (1-64 bytes). */
export function registrationOptions(
  options: PublicKeyCredentialCreationOptionsJSON,
  hostname: string,
): PublicKeyCredentialCreationOptionsJSON {
  if (options?.rp?.id !== PASSKEY_RP_PLACEHOLDER) {
    throw failure("registration", "The service's passkey options do not carry the expected relying-party placeholder.");
  }
  const userIdBytes = base64UrlByteLength(options.user?.id ?? "");
  if (userIdBytes < 1 || userIdBytes > 64) {
    throw failure("registration", `The passkey user id must be 1 to 64 bytes long (it is ${userIdBytes}).`);
  }
  return { ...options, rp: { ...options.rp, id: passkeyHostname(hostname, "registration") } };
}

/** Authentication options with the page's hostname as RP id; checks the placeholder. */
export function authenticationOptions(
  options: PublicKeyCredentialRequestOptionsJSON,
  hostname: string,
): PublicKeyCredentialRequestOptionsJSON {
  if (options?.rpId !== PASSKEY_RP_PLACEHOLDER) {
    throw failure("authentication", "The service's passkey options do not carry the expected relying-party placeholder.");
  }
  return { ...options, rpId: passkeyHostname(hostname, "authentication") };
}

function base64UrlByteLength(text: string): number {
  if (!/^[A-Za-z0-9_-]*={0,2}$/.test(text)) return -1;
  const chars = text.replace(/=+$/, "").length;
  return Math.floor((chars * 3) / 4);
}

/**
 * A browser-side failure as PASSKEY_WEBAUTHN_ERROR (service-api A6.7): `details.code` is the
 * helper's classification (ERROR_CEREMONY_ABORTED, ...) or the DOMException's name
 * (NotAllowedError when the user cancels or the browser refuses).
 */
export function webauthnError(error: unknown): KnownError {
  if (error instanceof KnownError) return error;
  const e = error as { name?: unknown; code?: unknown; message?: unknown; cause?: { name?: unknown } } | null;
  const name = typeof e?.cause?.name === "string" ? e.cause.name : typeof e?.name === "string" ? e.name : "Error";
  const code = typeof e?.code === "string" && e.code !== "ERROR_PASSTHROUGH_SEE_CAUSE_PROPERTY" ? e.code : name;
  const message = typeof e?.message === "string" && e.message ? e.message : String(error);
  return new PasskeyWebauthnError({ message, details: { message, code } });
}

/** Runs navigator.credentials.create for these options; browser failures become PasskeyWebauthnError. */
export async function createCredential(options: PublicKeyCredentialCreationOptionsJSON): Promise<RegistrationResponseJSON> {
  const { startRegistration } = await browserHelper();
  try {
    return await startRegistration({ optionsJSON: options });
  } catch (error) {
    throw webauthnError(error);
  }
}

/**
 * Runs navigator.credentials.get. With `autofill`, the browser offers passkeys in the
 * autocomplete of an input with `autocomplete="username webauthn"` (conditional UI) and the
 * promise settles only when the person picks one.
 */
export async function getCredential(
  options: PublicKeyCredentialRequestOptionsJSON,
  autofill = false,
): Promise<AuthenticationResponseJSON> {
  const { startAuthentication } = await browserHelper();
  try {
    return await startAuthentication({ optionsJSON: options, useBrowserAutofill: autofill });
  } catch (error) {
    throw webauthnError(error);
  }
}
