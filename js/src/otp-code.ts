// The code of a typed one-time code (magic-link e-mails), in a module of its own so that the
// package's entry can export it without the sign-in flows, which load on first use.
import { AuthmwError } from "./known-error.js";

const OTP_LENGTH = 6;

/** The 45-character code for a typed one-time code: its 6 characters, lower-cased, + the nonce. */
export function otpCode(otp: string, nonce: string): string {
  const typed = otp.replace(/[\s-]/g, "").toLowerCase();
  if (typed.length !== OTP_LENGTH) {
    throw new AuthmwError(`With a nonce, the code must be the ${OTP_LENGTH}-character code from the e-mail.`);
  }
  return typed + nonce;
}
