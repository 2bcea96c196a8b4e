// The sign-in methods of the handler pages as parts of an app's own page (issue 40): each
// finishes the sign-in as the handler does (after_auth_return_to, else after-sign-in / -up; the
// TOTP prompt when the account has it). Render them inside an element of class `authmw-page`
// with <AuthStyles /> once, or style them yourself.
import { useProject } from "../../hooks.js";
import { useMessages } from "../../messages.js";
import { ProviderButtons } from "../../oauth/provider-buttons.js";
import { useAuth } from "../../use-auth.js";
import { useReturnTo } from "../layout.js";
import { PasswordForm } from "./password-form.js";
import { Standalone } from "./standalone.js";
import type { JSX } from "react";

export interface OAuthButtonGroupProps {
  /** Which providers, in this order; default every provider the project enables. */
  providers?: string[];
  /** A relative URL to come back to; default the page's after_auth_return_to, else after-sign-in. */
  returnTo?: string | null;
}

/** "Continue with …" for each provider: a click sends the browser to the provider (signInWithOAuth). */
export function OAuthButtonGroup({ providers, returnTo }: OAuthButtonGroupProps): JSX.Element | null {
  const auth = useAuth();
  const m = useMessages();
  const project = useProject();
  const pageReturnTo = useReturnTo();
  const ids = providers ?? (project.status === "ready" ? project.value.config.oauthProviders.map((p) => p.id) : []);
  if (ids.length === 0) return null;
  return (
    <div data-testid="oauth-buttons">
      <ProviderButtons
        ids={ids}
        label={m.oauthButtonsLabel}
        text={m.continueWithProvider}
        testId={(id) => `oauth-${id}`}
        action={(id) => auth.signInWithOAuth(id, { returnTo: returnTo === undefined ? pageReturnTo : returnTo })}
      />
    </div>
  );
}

export interface OAuthButtonProps {
  /** The provider's id in the project ("github", "google", …). */
  provider: string;
  returnTo?: string | null;
}

/** One provider's "Continue with …" button. */
export function OAuthButton({ provider, returnTo }: OAuthButtonProps): JSX.Element {
  return <OAuthButtonGroup providers={[provider]} returnTo={returnTo} />;
}

/** The e-mail and password sign-in form ("Forgot your password?" included). */
export function CredentialSignIn(): JSX.Element {
  return <Standalone mode="sign-in" Form={PasswordForm} />;
}

/** The e-mail and password sign-up form; the new user gets the verification e-mail. */
export function CredentialSignUp(): JSX.Element {
  return <Standalone mode="sign-up" Form={PasswordForm} />;
}

