import { useEffect, useRef, useState } from "react";
import { useSearchParams } from "react-router";
import { isKnownError } from "../../known-error.js";
import { useAuth } from "../use-auth.js";
import { describeCodeError, useMessages } from "../messages.js";
import { AuthPage, Failed, useFinishSignIn } from "./layout.js";
import { MfaPage } from "./mfa.js";

type Step =
  | { step: "signing-in" }
  | { step: "mfa"; attemptCode: string }
  | { step: "failed"; message: string };

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
    state.step === "mfa" ? (
      <MfaPage attemptCode={state.attemptCode} onSignedIn={finish} />
    ) : (
      <AuthPage
        title={state.step === "failed" ? m.signInFailedTitle : m.magicLinkCallbackTitle}
        busy={state.step === "signing-in" ? m.signingYouIn : undefined}
      >
        {state.step === "failed" && <Failed message={state.message} to={auth.urls.signIn} label={m.signInAgain} />}
      </AuthPage>
    )
  );
}
