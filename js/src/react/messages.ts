import {
  ConnectionError,
  EmailPasswordMismatch,
  KnownError,
  MultiFactorAuthenticationRequired,
  PasswordAuthenticationNotEnabled,
  PasswordTooLong,
  PasswordTooShort,
  SchemaError,
  SignUpNotEnabled,
  UserEmailAlreadyExists,
} from "../errors";

/** The sentence a handler page shows for a failed sign-in / sign-up. */
export function describeError(error: unknown): string {
  if (error instanceof EmailPasswordMismatch) return "Wrong e-mail or password.";
  if (error instanceof UserEmailAlreadyExists) return "User email already exists.";
  if (error instanceof PasswordTooShort) return `Password too short. Minimum length is ${error.minLength ?? 8}.`;
  if (error instanceof PasswordTooLong) return `Password too long. Maximum length is ${error.maxLength ?? 70}.`;
  if (error instanceof SignUpNotEnabled) return "Creation of new accounts is not enabled for this project.";
  if (error instanceof PasswordAuthenticationNotEnabled) return "Password authentication is not enabled for this project.";
  if (error instanceof MultiFactorAuthenticationRequired) {
    return "This account requires multi-factor authentication, which this page does not support yet.";
  }
  if (error instanceof SchemaError) return `The service rejected the form: ${error.message}`;
  if (error instanceof KnownError) return error.message;
  if (error instanceof ConnectionError) {
    return error.offline
      ? "You appear to be offline. Check your connection and try again."
      : "Could not reach the authentication service. Please try again.";
  }
  return "Something went wrong. Please try again.";
}
