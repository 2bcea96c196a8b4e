import { useEffect, useRef, useState, type FormEvent } from "react";
import { useSearchParams } from "react-router";
import { AuthLink } from "../auth-link.js";
import { isKnownError } from "../../known-error.js";
import { useAuth } from "../use-auth.js";
import { describeCodeError, useMessages, type Messages } from "../messages.js";
import { AuthPage, FormError, formValue, NewPasswordFields, repeatMismatch, SubmitButton, useSubmit } from "./layout.js";

type Step = { step: "checking" } | { step: "form" } | { step: "done" } | { step: "failed"; message: string };

const linkMessage = (error: unknown, m: Messages) => describeCodeError(error, m.passwordResetLinkNoun, m);

/**
 * {handler}/password-reset?code=...: checks the code first (without using it), then asks for the
 * new password. A code that cannot be used leads to forgot-password for a new link.
 */
export function PasswordReset() {
  const auth = useAuth();
  const m = useMessages();
  const [params] = useSearchParams();
  const code = params.get("code");
  const [state, setState] = useState<Step>(code ? { step: "checking" } : { step: "failed", message: m.resetLinkIncomplete });
  const submit = useSubmit(linkMessage);
  const checked = useRef<string | null>(null);

  useEffect(() => {
    if (!code || checked.current === code) return;
    checked.current = code;
    auth.verifyPasswordResetCode(code).then(
      () => setState({ step: "form" }),
      (error: unknown) => setState({ step: "failed", message: linkMessage(error, m) }),
    );
  }, [auth, code, m]);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    const password = formValue(form, "password");
    if (!submit.validate(form, repeatMismatch(form, "password", m))) return;
    const outcome = await submit.run(() => auth.resetPassword({ code: code!, password }));
    if (outcome.ok) setState({ step: "done" });
    else if (isKnownError(outcome.error, "VERIFICATION_ERROR")) setState({ step: "failed", message: linkMessage(outcome.error, m) });
    else if (isKnownError(outcome.error, "PASSWORD_REQUIREMENTS_NOT_MET")) submit.showOnField(form, "password", outcome.error);
  }

  return (
    <AuthPage
      title={state.step === "failed" ? m.linkFailedTitle : m.passwordResetTitle}
      busy={state.step === "checking" ? m.checkingLink : undefined}
    >
      {state.step === "form" && (
        <form onSubmit={onSubmit} className="authmw-form" noValidate aria-busy={submit.pending} data-testid="password-reset-form">
          <NewPasswordFields name="password" submit={submit} />
          <FormError id={submit.formErrorId} message={submit.error} />
          <SubmitButton pending={submit.pending} label={m.setNewPassword} pendingLabel={m.saving} />
        </form>
      )}
      {state.step === "done" && (
        <>
          <p role="status" className="authmw-notice" data-testid="password-reset-done">
            {m.passwordResetDone}
          </p>
          <AuthLink className="authmw-button authmw-primary" to={auth.urls.signIn}>
            {m.signIn}
          </AuthLink>
        </>
      )}
      {state.step === "failed" && (
        <>
          <p role="alert" className="authmw-error" data-testid="auth-error">
            {state.message}
          </p>
          <div className="authmw-actions">
            <AuthLink className="authmw-button authmw-primary" to={auth.urls.forgotPassword} data-testid="request-new-link">
              {m.requestNewLink}
            </AuthLink>
            <AuthLink className="authmw-button" to={auth.urls.signIn}>
              {m.signIn}
            </AuthLink>
          </div>
        </>
      )}
    </AuthPage>
  );
}
