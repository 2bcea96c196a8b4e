import { useEffect, useRef, useState, type FormEvent } from "react";
import { Link, useSearchParams } from "react-router";
import { PasswordConfirmationMismatch, VerificationCodeError } from "../../errors";
import { useAuth } from "../hooks";
import { describeError, verificationCodeMessage } from "../messages";
import { AuthPage, Field, FormError, formStyle, formValue, useSubmit } from "./layout";

type Step = { step: "checking" } | { step: "form" } | { step: "done" } | { step: "failed"; message: string };

const linkMessage = (error: unknown) =>
  error instanceof VerificationCodeError ? verificationCodeMessage(error, "password reset link") : describeError(error);

/**
 * {handler}/password-reset?code=...: checks the code first (without using it), then asks for the
 * new password. A code that cannot be used leads to forgot-password for a new link.
 */
export function PasswordReset() {
  const auth = useAuth();
  const [params] = useSearchParams();
  const code = params.get("code");
  const [state, setState] = useState<Step>(
    code ? { step: "checking" } : { step: "failed", message: "This password reset link is incomplete (no code)." },
  );
  const submit = useSubmit();
  const checked = useRef<string | null>(null);

  useEffect(() => {
    if (!code || checked.current === code) return;
    checked.current = code;
    auth.verifyPasswordResetCode(code).then(
      () => setState({ step: "form" }),
      (error: unknown) => setState({ step: "failed", message: linkMessage(error) }),
    );
  }, [auth, code]);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const password = formValue(event.currentTarget, "password");
    const repeat = formValue(event.currentTarget, "repeat");
    const outcome = await submit.run(async () => {
      if (password !== repeat) throw new PasswordConfirmationMismatch();
      await auth.resetPassword({ code: code!, password });
    });
    if (outcome.ok) setState({ step: "done" });
    else if (outcome.error instanceof VerificationCodeError) setState({ step: "failed", message: linkMessage(outcome.error) });
  }

  return (
    <AuthPage title="Choose a new password">
      {state.step === "checking" && <p role="status">Checking your link…</p>}
      {state.step === "form" && (
        <form onSubmit={onSubmit} style={formStyle} aria-busy={submit.pending} data-testid="password-reset-form">
          <Field label="New password" name="password" type="password" autoComplete="new-password" errorId={submit.errorId} />
          <Field label="Repeat new password" name="repeat" type="password" autoComplete="new-password" errorId={submit.errorId} />
          <FormError id={submit.formErrorId} message={submit.error} />
          <button type="submit" disabled={submit.pending}>
            {submit.pending ? "Saving…" : "Set new password"}
          </button>
        </form>
      )}
      {state.step === "done" && (
        <>
          <p role="status" data-testid="password-reset-done">
            Your password has been changed. Sign in with your new password.
          </p>
          <p>
            <Link to={auth.urls.signIn}>Sign in</Link>
          </p>
        </>
      )}
      {state.step === "failed" && (
        <>
          <p role="alert" className="authmw-error" data-testid="auth-error">
            {state.message}
          </p>
          <p>
            <Link to={auth.urls.forgotPassword} data-testid="request-new-link">
              Request a new link
            </Link>{" "}
            · <Link to={auth.urls.signIn}>Sign in</Link>
          </p>
        </>
      )}
    </AuthPage>
  );
}
