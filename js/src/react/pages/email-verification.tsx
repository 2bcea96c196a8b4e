import { useCallback, useState } from "react";
import { useSearchParams } from "react-router";
import { AuthLink } from "../auth-link.js";
import { isKnownError } from "../../known-error.js";
import { withReturnTo } from "../../return-to.js";
import { useAuth } from "../use-auth.js";
import { describeCodeError, useMessages, verificationCodeMessage, type Messages } from "../messages.js";
import { AuthPage, ConfirmLink, FormError, Status, useReturnTo, useSubmit } from "./layout.js";

type Outcome =
  | { state: "confirm" }
  | { state: "verifying" }
  | { state: "verified" }
  /** `retry`: the failure was not the code's (e.g. the network), so trying again may work. */
  | { state: "failed"; message: string; retry: boolean };

function verificationMessage(error: unknown, m: Messages): string {
  if (isKnownError(error, "VERIFICATION_ERROR")) {
    const sentence = verificationCodeMessage(error, m.verificationLinkNoun, m);
    const renewable = isKnownError(error, "VERIFICATION_CODE_EXPIRED") || isKnownError(error, "VERIFICATION_CODE_MAX_ATTEMPTS_REACHED");
    return renewable ? `${sentence} ${m.requestNewOne}` : sentence;
  }
  return describeCodeError(error, m.verificationLinkNoun, m);
}

/**
 * {handler}/email-verification?code=...: the page the verification e-mail links to. It verifies on
 * the person's click ("Verify your e-mail address?"), not on arrival: a mail scanner that opens the
 * link does not use up its one-time code.
 */
export function EmailVerification() {
  const auth = useAuth();
  const m = useMessages();
  const [params] = useSearchParams();
  const returnTo = useReturnTo();
  const code = params.get("code");
  const [outcome, setOutcome] = useState<Outcome>(
    code ? { state: "confirm" } : { state: "failed", message: m.verificationLinkIncomplete, retry: false },
  );
  const resend = useSubmit();
  const [resent, setResent] = useState(false);

  const verify = useCallback(() => {
    if (!code) return;
    setOutcome({ state: "verifying" });
    auth.verifyEmail(code).then(
      () => setOutcome({ state: "verified" }),
      (error: unknown) =>
        setOutcome({
          state: "failed",
          message: verificationMessage(error, m),
          retry: !(isKnownError(error, "VERIFICATION_ERROR")) && !(isKnownError(error, "EMAIL_ALREADY_VERIFIED")),
        }),
    );
  }, [auth, code, m]);

  const canResend =
    outcome.state === "failed" && !outcome.retry && auth.user !== null && auth.user.primaryEmailVerified === false;
  const canSignIn = outcome.state === "failed" && auth.status === "signed-out";
  // One primary button, the first way on: try again, else a new e-mail, else sign in, else continue.
  const primary =
    outcome.state === "failed" && outcome.retry ? "retry" : canResend && !resent ? "resend" : canSignIn ? "sign-in" : "continue";
  const kind = (action: string, base = "") => `${base}${primary === action ? " authmw-primary" : ""}`.trim();

  if (outcome.state === "confirm") {
    return <ConfirmLink title={m.emailVerifyConfirmTitle} text={m.emailVerifyConfirmText} button={m.verify} onConfirm={verify} />;
  }
  return (
    <AuthPage
      title={
        outcome.state === "failed"
          ? m.emailVerificationFailedTitle
          : outcome.state === "verified"
            ? m.emailVerifiedTitle
            : m.emailVerificationTitle
      }
      busy={outcome.state === "verifying" ? m.verifyingEmail : undefined}
    >
      {outcome.state === "verified" && (
        <p role="status" className="authmw-notice" data-testid="email-verified">
          {m.emailVerified}
        </p>
      )}
      {outcome.state === "failed" && (
        <p role="alert" className="authmw-error" data-testid="auth-error">
          {outcome.message}
        </p>
      )}
      <FormError message={resend.error} />
      <Status message={resent ? m.newVerificationEmailSent : null} />
      <div className="authmw-actions">
        {outcome.state === "failed" && outcome.retry && (
          <button type="button" className={kind("retry")} onClick={verify}>
            {m.tryAgain}
          </button>
        )}
        {canResend && !resent && (
          <button
            type="button"
            className={kind("resend")}
            disabled={resend.pending}
            data-testid="resend-verification"
            onClick={async () => {
              if ((await resend.run(() => auth.sendVerificationEmail())).ok) setResent(true);
            }}
          >
            {resend.pending ? m.sending : m.sendNewVerificationEmail}
          </button>
        )}
        {canSignIn && (
          <AuthLink className={kind("sign-in", "authmw-button")} to={withReturnTo(auth.urls.signIn, auth.urls.accountSettings)}>
            {m.signIn}
          </AuthLink>
        )}
        {outcome.state !== "verifying" && (
          <AuthLink className={kind("continue", "authmw-button")} to={returnTo ?? auth.urls.home}>
            {m.continue}
          </AuthLink>
        )}
      </div>
    </AuthPage>
  );
}
