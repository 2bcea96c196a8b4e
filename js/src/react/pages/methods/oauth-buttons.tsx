import type { ProjectConfig } from "../../../models.js";
import { OAuthButtonGroup } from "./blocks.js";
import type { AuthMode, MethodProps } from "./types.js";
import type { JSX } from "react";

/** Shown when the project enables at least one OAuth provider (on sign-up too: a first OAuth sign-in creates the user). */
export function oauthButtonsShown(config: ProjectConfig, _mode: AuthMode): boolean {
  return config.oauthProviders.length > 0;
}

/**
 * One "Continue with {provider}" button per provider the project enables, first of the methods.
 * A click keeps a PKCE verifier for a new state in a cookie and sends the browser to the provider
 * (signInWithOAuth); the oauth-callback page finishes the sign-in.
 */
export function OAuthButtons({ config, returnTo }: MethodProps): JSX.Element {
  return <OAuthButtonGroup providers={config?.oauthProviders.map((p) => p.id) ?? []} returnTo={returnTo} />;
}
