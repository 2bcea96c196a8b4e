import { useEffect, useState } from "react";
import { useSearchParams } from "react-router";
import { AuthLink } from "../auth-link.js";
import { useAuth } from "../use-auth.js";
import { describeUntrustedError, sentenceOfCode, useMessages } from "../messages.js";
import { AuthPage, useBackToSignIn } from "./layout.js";

/** Codes of a sign-in that failed at or after the OAuth provider: a signed-out user goes back to sign in. */
export const isSignInFailure = (code: string) => /^(oauth|errorOAuth|errorSignUpNotEnabled$)/.test(sentenceOfCode(code) ?? "");

/**
 * {handler}/error, where the service's redirects send errors (`errorCode`, `message`, `details`).
 * Anyone can write such a URL, so the page shows only its own sentence for a catalogue code
 * (describeUntrustedError), never the URL's text; the catalogue loads with the page's first code.
 * A failed OAuth sign-in of a signed-out user (Deny at the provider) goes back to the sign-in
 * page, which says what happened. Otherwise the page offers the way back: sign in (again), or
 * account settings when signed in, and home.
 */
export function HandlerError() {
  const [params] = useSearchParams();
  const auth = useAuth();
  const m = useMessages();
  const backToSignIn = useBackToSignIn();
  const code = params.get("errorCode");
  const [text, setText] = useState<string | null>(code ? null : m.unexpectedError);
  const signedOut = auth.status === "signed-out";
  const leaving = Boolean(code && signedOut && isSignInFailure(code));
  useEffect(() => {
    if (leaving) {
      backToSignIn(code!);
      return;
    }
    if (!code) {
      setText(m.unexpectedError);
      return;
    }
    let live = true;
    import("../../errors.js").then(
      ({ knownErrorClass }) => {
        const cls = knownErrorClass(code);
        if (live) setText(cls ? describeUntrustedError(new cls(), m) : m.unexpectedError);
      },
      () => live && setText(m.unexpectedError),
    );
    return () => {
      live = false;
    };
  }, [code, m, leaving, backToSignIn]);
  const busy = text === null || leaving || auth.status === "loading";
  return (
    <AuthPage title={m.errorTitle} busy={busy ? m.loading : undefined}>
      {!busy && (
        <>
          <p role="alert" className="authmw-error" data-testid="handler-error">
            {text}
          </p>
          <div className="authmw-actions">
            {signedOut ? (
              <AuthLink className="authmw-button authmw-primary" to={auth.urls.signIn} data-testid="auth-way-back">
                {m.signInAgain}
              </AuthLink>
            ) : (
              <AuthLink className="authmw-button authmw-primary" to={auth.urls.accountSettings} data-testid="auth-way-back">
                {m.accountSettingsTitle}
              </AuthLink>
            )}
            <AuthLink className="authmw-button" to={auth.urls.home}>
              {m.goHome}
            </AuthLink>
          </div>
        </>
      )}
    </AuthPage>
  );
}

/** Any other path under the handler. */
export function HandlerNotFound() {
  const { urls } = useAuth();
  const m = useMessages();
  return (
    <AuthPage title={m.notFoundTitle}>
      <p>{m.notFound}</p>
      <div className="authmw-actions">
        <AuthLink className="authmw-button authmw-primary" to={urls.home}>
          {m.goHome}
        </AuthLink>
        <AuthLink className="authmw-button" to={urls.signIn}>
          {m.signIn}
        </AuthLink>
      </div>
    </AuthPage>
  );
}
