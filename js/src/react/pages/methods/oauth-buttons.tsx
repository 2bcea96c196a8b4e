import type { ProjectConfig } from "../../../models";
import type { AuthMode, MethodProps } from "./types";

/**
 * SLOT for the OAuth buttons ("Continue with GitHub", ...), first of the sign-in / sign-up
 * methods. Placeholder: shown nowhere until the OAuth buttons are built here.
 */
export function oauthButtonsShown(_config: ProjectConfig, _mode: AuthMode): boolean {
  return false;
}

/** One button per enabled OAuth provider (placeholder: renders nothing yet). */
export function OAuthButtons(_props: MethodProps) {
  return null;
}
