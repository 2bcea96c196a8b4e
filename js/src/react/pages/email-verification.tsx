import { useEffect, useRef, useState } from "react";
import { Link, useSearchParams } from "react-router";
import { EmailAlreadyVerified, VerificationCodeAlreadyUsed, VerificationCodeError, VerificationCodeExpired } from "../../errors";
import { useAuth } from "../hooks";
import { describeError } from "../messages";
import { AuthPage, useReturnTo } from "./layout";

type Outcome = { state: "verifying" } | { state: "verified" } | { state: "failed"; message: string };

function verificationMessage(error: unknown): string {
  if (error instanceof VerificationCodeExpired) return "This verification link has expired. Request a new one.";
  if (error instanceof VerificationCodeAlreadyUsed) return "This verification link has already been used.";
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
    code ? { state: "verifying" } : { state: "failed", message: "This verification link is incomplete (no code)." },
  );
  const started = useRef(false);

  useEffect(() => {
    if (!code || started.current) return;
    started.current = true; // a code can be used once; StrictMode runs effects twice
    auth.verifyEmail(code).then(
      () => setOutcome({ state: "verified" }),
      (error: unknown) => setOutcome({ state: "failed", message: verificationMessage(error) }),
    );
  }, [auth, code]);

  return (
    <AuthPage title="E-mail verification">
      {outcome.state === "verifying" && <p role="status">Verifying your e-mail…</p>}
      {outcome.state === "verified" && <p role="status">Your e-mail address is verified.</p>}
      {outcome.state === "failed" && (
        <p role="alert" className="authmw-error" data-testid="auth-error">
          {outcome.message}
        </p>
      )}
      <p>
        <Link to={returnTo ?? auth.urls.home}>Continue</Link>
      </p>
    </AuthPage>
  );
}
