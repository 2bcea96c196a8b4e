import { useState } from "react";
import { useSearchParams } from "react-router";
import { isKnownError } from "../../known-error.js";
import { useAuth } from "../use-auth.js";
import { describeCodeError, useMessages } from "../messages.js";
import { AuthPage, ConfirmLink, Failed, useFinishSignIn, useReturnTo } from "./layout.js";
import { AlreadySignedIn } from "./methods/methods-page.js";
import { MfaPage } from "./mfa.js";

type Step =
  | { step: "confirm" }
  | { step: "signing-in" }
  | { step: "mfa"; attemptCode: string }
  | { step: "failed"; message: string };

/**
 * {handler}/magic-link-callback?code=...: signs in with the code of the magic-link e-mail, on the
 * person's click only ("Sign in with this link?"): opening the link uses nothing, so another site
 * cannot sign a visitor into the account of a link it sends them to (its own), and a mail scanner
 * that opens the link does not use up its one-time code. A user who is signed in already (a guest
 * aside, whom the sign-in upgrades) keeps their session and the link stays unused, as on the
 * sign-in page.
 */
export function MagicLinkCallback() {
  const auth = useAuth();
  const [params] = useSearchParams();
  const code = params.get("code");
  const finish = useFinishSignIn();
  const returnTo = useReturnTo();
  const m = useMessages();
  const [state, setState] = useState<Step>(
    code ? { step: "confirm" } : { step: "failed", message: m.signInLinkIncomplete },
  );
  const signedIn = auth.user && !auth.user.isAnonymous && state.step === "confirm" ? auth.user : null;

  const signIn = () => {
    setState({ step: "signing-in" });
    auth.signInWithMagicLink(code!).then(finish, (error: unknown) => {
      if (isKnownError(error, "MULTI_FACTOR_AUTHENTICATION_REQUIRED") && error.attemptCode) {
        setState({ step: "mfa", attemptCode: error.attemptCode });
      } else {
        setState({ step: "failed", message: describeCodeError(error, m.signInLinkNoun, m) });
      }
    });
  };

  return signedIn ? (
    <AlreadySignedIn user={signedIn} to={returnTo ?? auth.urls.afterSignIn} />
  ) : state.step === "confirm" ? (
    <ConfirmLink title={m.magicLinkConfirmTitle} text={m.magicLinkConfirmText} button={m.signIn} onConfirm={signIn} />
  ) : state.step === "mfa" ? (
    <MfaPage attemptCode={state.attemptCode} onSignedIn={finish} />
  ) : (
    <AuthPage
      title={state.step === "failed" ? m.signInFailedTitle : m.magicLinkCallbackTitle}
      busy={state.step === "signing-in" ? m.signingYouIn : undefined}
    >
      {state.step === "failed" && <Failed message={state.message} to={auth.urls.signIn} label={m.signInAgain} />}
    </AuthPage>
  );
}
