import type { ProjectConfig } from "../../../models.js";

export type AuthMode = "sign-in" | "sign-up";

/** What the sign-in / sign-up page hands each sign-in method. */
export interface MethodProps {
  mode: AuthMode;
  /** The trusted after_auth_return_to of the page, if any. */
  returnTo: string | null;
  /** The project's configuration (null where a method is used outside the handler pages). */
  config: ProjectConfig | null;
  /** Call after a sign-in that completed here: leaves for returnTo or the after-sign-in/up page. */
  onSignedIn(isNewUser?: boolean): void;
  /** Call with the attempt code of MULTI_FACTOR_AUTHENTICATION_REQUIRED: the page asks for the TOTP code. */
  onMfaRequired(attemptCode: string): void;
}
