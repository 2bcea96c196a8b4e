// TOTP set-up (service-api A6.8): a new 20-byte secret, its otpauth:// URI for the authenticator app
// (issuer = the project's name, account = the user's e-mail), and the check that the person's app
// holds it before it is turned on. The TOTP library is imported on first use.
import { InvalidTotpCode } from "./errors.js";
import { AuthmwError } from "./known-error.js";

/** A TOTP secret being set up: show `uri` as a QR code and `secret` (base32) as text. */
export interface TotpSetup {
  uri: string;
  /** Base32, what a person types into an authenticator app. */
  secret: string;
  /** Standard base64 of the same bytes: what the service stores (totp_secret_base64). */
  secretBase64: string;
}

/** Bytes of a new secret (as the official SDK). */
export const TOTP_SECRET_BYTES = 20;
/** Steps either side of now an enrolment code may come from (a person typing at a step boundary). */
export const TOTP_ENROL_WINDOW = 1;

const otpauth = () => import("otpauth");

function totpOf(lib: typeof import("otpauth"), secret: InstanceType<typeof lib.Secret>, issuer: string, account: string) {
  return new lib.TOTP({ issuer, label: account, algorithm: "SHA1", digits: 6, period: 30, secret });
}

export async function createTotpSetup(issuer: string, account: string): Promise<TotpSetup> {
  const lib = await otpauth();
  const bytes = crypto.getRandomValues(new Uint8Array(TOTP_SECRET_BYTES));
  const secret = new lib.Secret({ buffer: bytes.buffer });
  return {
    uri: totpOf(lib, secret, issuer, account).toString(),
    secret: secret.base32,
    secretBase64: btoa(String.fromCharCode(...bytes)),
  };
}

/** The 6 digits of a typed code (spaces allowed), or an InvalidTotpCode-free AuthmwError naming the problem. */
export function typedTotp(code: string): string {
  const digits = code.replace(/\s/g, "");
  if (!/^\d{6}$/.test(digits)) throw new AuthmwError("Enter the 6-digit code your authenticator app shows.");
  return digits;
}

/** Resolves when `code` is a current code of the set-up's secret; InvalidTotpCode otherwise. */
export async function checkTotpSetupCode(setup: TotpSetup, code: string, now: number = Date.now()): Promise<void> {
  const lib = await otpauth();
  const totp = totpOf(lib, lib.Secret.fromBase32(setup.secret), "", "");
  if (totp.validate({ token: typedTotp(code), timestamp: now, window: TOTP_ENROL_WINDOW }) === null) {
    throw new InvalidTotpCode();
  }
}
