import {
  ConnectionError,
  ContactChannelAlreadyUsedForAuthBySomeoneElse,
  EmailAlreadyVerified,
  EmailPasswordMismatch,
  HttpStatusError,
  InvalidTotpCode,
  KnownError,
  MultiFactorAuthenticationRequired,
  PasswordAuthenticationNotEnabled,
  PasswordConfirmationMismatch,
  PasswordTooLong,
  PasswordTooShort,
  RedirectUrlNotWhitelisted,
  SchemaError,
  SignUpNotEnabled,
  TeamPermissionRequired,
  UserDoesNotHavePassword,
  UserEmailAlreadyExists,
  VerificationCodeAlreadyUsed,
  VerificationCodeError,
  VerificationCodeExpired,
  VerificationCodeMaxAttemptsReached,
} from "../errors";
import { AuthmwError } from "../known-error";

/** The sentence a handler page shows for a failed sign-in / sign-up. */
export function describeError(error: unknown): string {
  if (error instanceof EmailPasswordMismatch) return "Wrong e-mail or password.";
  if (error instanceof UserEmailAlreadyExists) return "User email already exists.";
  if (error instanceof PasswordTooShort) return `Password too short. Minimum length is ${error.minLength ?? 8}.`;
  if (error instanceof PasswordTooLong) return `Password too long. Maximum length is ${error.maxLength ?? 70}.`;
  if (error instanceof SignUpNotEnabled) return "Creation of new accounts is not enabled for this project.";
  if (error instanceof PasswordAuthenticationNotEnabled) return "Password authentication is not enabled for this project.";
  if (error instanceof MultiFactorAuthenticationRequired) {
    return "This account requires multi-factor authentication: enter the code of your authenticator app.";
  }
  if (error instanceof InvalidTotpCode) return "The TOTP code is invalid. Please try again.";
  if (error instanceof PasswordConfirmationMismatch) return "Passwords do not match.";
  if (error instanceof UserDoesNotHavePassword) return "This account has no password yet; set one instead.";
  if (error instanceof EmailAlreadyVerified) return "This e-mail address is already verified.";
  if (error instanceof RedirectUrlNotWhitelisted) {
    return "This site is not a trusted domain of the project, so the service will not send links to it.";
  }
  if (error instanceof ContactChannelAlreadyUsedForAuthBySomeoneElse) {
    return "Another account already signs in with this e-mail address.";
  }
  if (error instanceof TeamPermissionRequired) return "You do not have the permission to do this in the team.";
  if (error instanceof VerificationCodeError) return verificationCodeMessage(error, "code");
  if (error instanceof SchemaError) return `The service rejected the form: ${error.message}`;
  if (error instanceof KnownError) return error.message;
  // Plain-text refusals of the service (e.g. "Magic link is not enabled for this project").
  if (error instanceof HttpStatusError && error.status >= 400 && error.status < 500 && isShortText(error.body)) {
    return error.body.trim();
  }
  if (error instanceof ConnectionError) {
    return error.offline
      ? "You appear to be offline. Check your connection and try again."
      : "Could not reach the authentication service. Please try again.";
  }
  if (error instanceof AuthmwError) return error.message;
  return "Something went wrong. Please try again.";
}

const isShortText = (body: string) => body.trim().length > 0 && body.length < 300 && !body.trim().startsWith("{") && !body.includes("<");

/** The sentence for a code that cannot be used, naming what it was ("password reset link", ...). */
export function verificationCodeMessage(error: VerificationCodeError, what: string): string {
  const This = `This ${what}`;
  if (error instanceof VerificationCodeExpired) return `${This} has expired.`;
  if (error instanceof VerificationCodeAlreadyUsed) return `${This} has already been used.`;
  if (error instanceof VerificationCodeMaxAttemptsReached) return `${This} was tried too many times.`;
  return `${This} is not valid.`;
}
