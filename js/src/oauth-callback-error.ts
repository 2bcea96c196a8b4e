// The error of an OAuth callback that cannot finish a sign-in, in a module of its own: the
// callback page tells it apart without loading the OAuth protocol (which loads with the flow).
import { AuthmwError } from "./known-error.js";

export type OAuthCallbackErrorReason =
  | "missing_parameters"
  | "no_stored_state"
  | "state_mismatch"
  | "issuer_mismatch"
  | "provider_error"
  | "implicit_response";

/** An OAuth callback that cannot finish a sign-in; `reason` says which check failed. */
export class OAuthCallbackError extends AuthmwError {
  readonly reason: OAuthCallbackErrorReason;
  /** The provider's `error` parameter (e.g. "access_denied") for reason "provider_error". */
  readonly error: string | undefined;
  constructor(reason: OAuthCallbackErrorReason, message: string, error?: string) {
    super(message);
    this.name = "OAuthCallbackError";
    this.reason = reason;
    this.error = error;
  }
}
