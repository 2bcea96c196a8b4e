import { useEffect, useRef, useState } from "react";
import { useAuthRedirect } from "../redirect";
import { useSearchParams } from "react-router";
import { isKnownError } from "../../known-error";
import type { SignInResult } from "../../models";
import { useAuth } from "../hooks";
import { describeCodeError, useMessages } from "../messages";
import { AuthPage, Failed, useReturnTo } from "./layout";
import { MfaPrompt } from "./mfa";

type Step =
  | { step: "signing-in" }
  | { step: "mfa"; attemptCode: string }
  | { step: "failed"; message: string };

/** The page after a sign-in that may have created the user: after_auth_return_to, else after-sign-up / after-sign-in. */
export function useFinishSignIn() {
  const auth = useAuth();
  const leave = useAuthRedirect();
  const returnTo = useReturnTo();
  return (result: SignInResult) =>
    leave(returnTo ?? (result.isNewUser ? auth.urls.afterSignUp : auth.urls.afterSignIn));
}

/** {handler}/magic-link-callback?code=...: signs in with the code of the magic-link e-mail. */
export function MagicLinkCallback() {
  const auth = useAuth();
  const [params] = useSearchParams();
  const code = params.get("code");
  const finish = useFinishSignIn();
  const m = useMessages();
  const [state, setState] = useState<Step>(
    code ? { step: "signing-in" } : { step: "failed", message: m.signInLinkIncomplete },
  );
  const started = useRef(false);

  useEffect(() => {
    if (!code || started.current) return;
    started.current = true; // the code is used by the first attempt; StrictMode runs effects twice
    auth.signInWithMagicLink(code).then(finish, (error: unknown) => {
      if (isKnownError(error, "MULTI_FACTOR_AUTHENTICATION_REQUIRED") && error.attemptCode) {
        setState({ step: "mfa", attemptCode: error.attemptCode });
      } else {
        setState({ step: "failed", message: describeCodeError(error, m.signInLinkNoun, m) });
      }
    });
  }, [auth, code, finish, m]);

  return (
    <AuthPage title={m.magicLinkCallbackTitle}>
      {state.step === "signing-in" && (
        <p role="status" className="authmw-hint">
          {m.signingYouIn}
        </p>
      )}
      {state.step === "mfa" && <MfaPrompt attemptCode={state.attemptCode} onSignedIn={finish} />}
      {state.step === "failed" && <Failed message={state.message} to={auth.urls.signIn} label={m.signInAgain} />}
    </AuthPage>
  );
}
