import type { ProjectConfig } from "../../../models";
import { useAuth } from "../../use-auth";
import { useMessages } from "../../messages";
import { ProviderButtons } from "../../oauth/provider-buttons";
import type { AuthMode, MethodProps } from "./types";

/** Shown when the project enables at least one OAuth provider (on sign-up too: a first OAuth sign-in creates the user). */
export function oauthButtonsShown(config: ProjectConfig, _mode: AuthMode): boolean {
  return config.oauthProviders.length > 0;
}

/**
 * One "Continue with {provider}" button per provider the project enables, first of the methods.
 * A click keeps a PKCE verifier for a new state in a cookie and sends the browser to the provider
 * (signInWithOAuth); the oauth-callback page finishes the sign-in.
 */
export function OAuthButtons({ config, returnTo }: MethodProps) {
  const auth = useAuth();
  const m = useMessages();
  const ids = config?.oauthProviders.map((p) => p.id) ?? [];
  if (ids.length === 0) return null;
  return (
    <div data-testid="oauth-buttons">
      <ProviderButtons
        ids={ids}
        label={m.oauthButtonsLabel}
        text={m.continueWithProvider}
        testId={(id) => `oauth-${id}`}
        action={(id) => auth.signInWithOAuth(id, { returnTo })}
      />
    </div>
  );
}
