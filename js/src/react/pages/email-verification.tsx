import { useCallback, useEffect, useRef, useState } from "react";
import { Link, useSearchParams } from "react-router";
import {
  EmailAlreadyVerified,
  VerificationCodeAlreadyUsed,
  VerificationCodeError,
  VerificationCodeExpired,
  VerificationCodeMaxAttemptsReached,
} from "../../errors";
import { useAuth } from "../hooks";
import { describeError } from "../messages";
import { AuthPage, FormError, Status, useReturnTo, useSubmit } from "./layout";

type Outcome =
  | { state: "verifying" }
  | { state: "verified" }
  /** `retry`: the failure was not the code's (e.g. the network), so trying again may work. */
  | { state: "failed"; message: string; retry: boolean };

function verificationMessage(error: unknown): string {
  if (error instanceof VerificationCodeExpired) return "This verification link has expired. Request a new one.";
  if (error instanceof VerificationCodeAlreadyUsed) return "This verification link has already been used.";
  if (error instanceof VerificationCodeMaxAttemptsReached) return "This verification link was tried too many times. Request a new one.";
  if (error instanceof VerificationCodeError) return "This verification link is not valid.";
  if (error instanceof EmailAlreadyVerified) return "The e-mail is already verified.";
  return describeError(error);
}

/** {handler}/email-verification?code=...: the page the verification e-mail links to. */
export function EmailVerification() {
  const auth = useAuth();
  const [params] = useSearchParams();
  const returnTo = useReturnTo();
  const code = params.get("code");
  const [outcome, setOutcome] = useState<Outcome>(
    code ? { state: "verifying" } : { state: "failed", message: "This verification link is incomplete (no code).", retry: false },
  );
  const started = useRef(false);
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
          message: verificationMessage(error),
          retry: !(error instanceof VerificationCodeError) && !(error instanceof EmailAlreadyVerified),
        }),
    );
  }, [auth, code]);

  useEffect(() => {
    if (started.current) return;
    started.current = true; // a code can be used once; StrictMode runs effects twice
    verify();
  }, [verify]);

  const canResend =
    outcome.state === "failed" && !outcome.retry && auth.user !== null && auth.user.primaryEmailVerified === false;

  return (
    <AuthPage title="E-mail verification">
      {outcome.state === "verifying" && <p role="status">Verifying your e-mail…</p>}
      {outcome.state === "verified" && (
        <p role="status" data-testid="email-verified">
          Your e-mail address is verified.
        </p>
      )}
      {outcome.state === "failed" && (
        <p role="alert" className="authmw-error" data-testid="auth-error">
          {outcome.message}
        </p>
      )}
      {outcome.state === "failed" && outcome.retry && (
        <p>
          <button type="button" onClick={verify}>
            Try again
          </button>
        </p>
      )}
      {canResend && !resent && (
        <p>
          <button
            type="button"
            disabled={resend.pending}
            data-testid="resend-verification"
            onClick={async () => {
              if ((await resend.run(() => auth.sendVerificationEmail())).ok) setResent(true);
            }}
          >
            Send a new verification e-mail
          </button>
        </p>
      )}
      <FormError message={resend.error} />
      <Status message={resent ? "We sent a new verification e-mail. Check your inbox." : null} />
      <p>
        <Link to={returnTo ?? auth.urls.home}>Continue</Link>
      </p>
    </AuthPage>
  );
}
