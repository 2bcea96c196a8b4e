import { useEffect, useRef, useState } from "react";
import { AuthLink } from "../auth-link.js";
import { isKnownError } from "../../known-error.js";
import { OAuthCallbackError } from "../../oauth-callback-error.js";
import type { OAuthCallbackResult } from "../../oauth.js";
import { trustedReturnTo } from "../../return-to.js";
import { useAuth } from "../use-auth.js";
import { describeUntrustedError, useMessages, type Messages } from "../messages.js";
import { useAuthRedirect } from "../redirect.js";
import { AuthPage, Failed, useBackToSignIn, useReturnTo } from "./layout.js";
import { MfaPage } from "./mfa.js";

type Step =
  | { step: "signing-in" }
  | { step: "not-for-us" }
  | { step: "mfa"; attemptCode: string }
  | { step: "failed"; message: string };

/**
 * What the page says when the sign-in cannot finish. The callback URL can be written by anyone
 * (its `error`, `error_description`, `errorCode`, `message` parameters), so only the page's own
 * sentences are shown, never the URL's text or the service's wording.
 */
const failure = (error: unknown, m: Messages): string => describeUntrustedError(error, m, m.oauthNotCompleted);

/**
 * {handler}/oauth-callback?code=...&state=...: finishes an OAuth sign-in (or account link).
 * Without code and state, or without a verifier kept for that state in this browser, it does
 * nothing (service-api C2) and says so. A new user goes to the after-sign-up page, others to
 * after-sign-in; after_auth_return_to (relative only) wins over both.
 */
export function OAuthCallback() {
  const auth = useAuth();
  const m = useMessages();
  const leave = useAuthRedirect();
  const returnTo = useReturnTo();
  const [state, setState] = useState<Step>({ step: "signing-in" });
  const backToSignIn = useBackToSignIn();
  const started = useRef(false);

  const finish = (isNewUser: boolean, after: string | null) =>
    leave(returnTo ?? trustedReturnTo(after) ?? (isNewUser ? auth.urls.afterSignUp : auth.urls.afterSignIn));

  useEffect(() => {
    if (started.current) return;
    started.current = true; // the code is single-use; StrictMode runs effects twice
    auth.oauth.handleCallback().then(
      (result: OAuthCallbackResult) => {
        if (result.status === "not-for-us") setState({ step: "not-for-us" });
        else finish(result.isNewUser, result.afterCallbackRedirectUrl);
      },
      (error: unknown) => {
        if (isKnownError(error, "MULTI_FACTOR_AUTHENTICATION_REQUIRED") && error.attemptCode) {
          setState({ step: "mfa", attemptCode: error.attemptCode });
        } else if (
          (error instanceof OAuthCallbackError && error.error === "access_denied") ||
          // 2.8 sends the callback's known errors to the app's callback (errorCode)
          isKnownError(error, "OAUTH_PROVIDER_ACCESS_DENIED")
        ) {
          backToSignIn("OAUTH_PROVIDER_ACCESS_DENIED");
        } else {
          setState({ step: "failed", message: failure(error, m) });
        }
      },
    );
    // eslint-disable-next-line react-hooks/exhaustive-deps -- runs once per page load
  }, []);

  if (state.step === "mfa") {
    return <MfaPage attemptCode={state.attemptCode} onSignedIn={(result) => finish(result.isNewUser, null)} wrongCodeEnds />;
  }
  return (
    <AuthPage
      title={state.step === "failed" ? m.signInFailedTitle : state.step === "signing-in" ? m.oauthCallbackTitle : m.signInTitle}
      busy={state.step === "signing-in" ? m.signingYouIn : undefined}
    >
      {state.step === "not-for-us" && (
        <>
          <p role="status" data-testid="oauth-callback-idle">
            {m.oauthNothingToFinish}
          </p>
          <AuthLink className="authmw-button authmw-primary" to={auth.urls.signIn}>
            {m.signInLink}
          </AuthLink>
        </>
      )}
      {state.step === "failed" && <Failed message={state.message} to={auth.urls.signIn} label={m.signInAgain} />}
    </AuthPage>
  );
}
