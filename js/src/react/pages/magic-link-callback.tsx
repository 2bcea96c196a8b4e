import { useEffect, useRef, useState } from "react";
import { useSearchParams } from "react-router";
import { isKnownError } from "../../known-error.js";
import { useAuth } from "../use-auth.js";
import { describeCodeError, useMessages } from "../messages.js";
import { AuthPage, Failed, useFinishSignIn, useReturnTo } from "./layout.js";
import { AlreadySignedIn } from "./methods/methods-page.js";
import { MfaPage } from "./mfa.js";

type Step =
  | { step: "signing-in" }
  | { step: "mfa"; attemptCode: string }
  | { step: "failed"; message: string };

/**
 * {handler}/magic-link-callback?code=...: signs in with the code of the magic-link e-mail. A user
 * who is signed in already (a guest aside, whom the sign-in upgrades) keeps their session and the
 * link stays unused, as on the sign-in page: a link another site sends the browser to (someone
 * else's, the attacker's own) must not swap the account they are working in for another.
 */
export function MagicLinkCallback() {
  const auth = useAuth();
  const [params] = useSearchParams();
  const code = params.get("code");
  const finish = useFinishSignIn();
  const returnTo = useReturnTo();
  const m = useMessages();
  const [state, setState] = useState<Step>(
    code ? { step: "signing-in" } : { step: "failed", message: m.signInLinkIncomplete },
  );
  const started = useRef(false);
  const signedIn = auth.user && !auth.user.isAnonymous && !started.current ? auth.user : null;

  useEffect(() => {
    if (!code || started.current || auth.status == "loading" || signedIn) return;
    started.current = true; // the code is used by the first attempt; StrictMode runs effects twice
    auth.signInWithMagicLink(code).then(finish, (error: unknown) => {
      if (isKnownError(error, "MULTI_FACTOR_AUTHENTICATION_REQUIRED") && error.attemptCode) {
        setState({ step: "mfa", attemptCode: error.attemptCode });
      } else {
        setState({ step: "failed", message: describeCodeError(error, m.signInLinkNoun, m) });
      }
    });
  }, [auth, code, finish, m, signedIn]);

  return signedIn && code ? (
    <AlreadySignedIn user={signedIn} to={returnTo ?? auth.urls.afterSignIn} />
  ) : (
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
