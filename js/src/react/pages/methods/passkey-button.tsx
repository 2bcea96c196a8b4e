import type { ProjectConfig } from "../../../models";
import type { AuthMode, MethodProps } from "./types";

/**
 * SLOT for "Sign in with a passkey", after the OAuth buttons and before the e-mail forms.
 * Placeholder: shown nowhere until the passkey sign-in is built here.
 */
export function passkeyButtonShown(_config: ProjectConfig, _mode: AuthMode): boolean {
  return false;
}

/** The passkey sign-in button (placeholder: renders nothing yet). */
export function PasskeyButton(_props: MethodProps) {
  return null;
}
