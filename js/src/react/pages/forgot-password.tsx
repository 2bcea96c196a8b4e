import { useState, type FormEvent } from "react";
import { Link } from "react-router";
import { useAuth } from "../hooks";
import { AuthPage, Field, FormError, formStyle, formValue, useSubmit } from "./layout";

/** {handler}/forgot-password: asks for the e-mail and sends the password-reset link. */
export function ForgotPassword() {
  const auth = useAuth();
  const submit = useSubmit();
  const [sentTo, setSentTo] = useState<string | null>(null);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const email = formValue(event.currentTarget, "email");
    const outcome = await submit.run(() => auth.sendForgotPasswordEmail(email));
    if (outcome.ok) setSentTo(email);
  }

  return (
    <AuthPage title="Reset your password">
      {sentTo ? (
        <p role="status" data-testid="forgot-password-sent">
          If an account signs in with <strong>{sentTo}</strong>, we sent it a link to reset the password. Check your inbox.
        </p>
      ) : (
        <form onSubmit={onSubmit} style={formStyle} aria-busy={submit.pending} data-testid="forgot-password-form">
          <p>Enter the e-mail address of your account and we will send you a link to choose a new password.</p>
          <Field label="E-mail" name="email" type="email" autoComplete="email" errorId={submit.errorId} />
          <FormError id={submit.formErrorId} message={submit.error} />
          <button type="submit" disabled={submit.pending}>
            {submit.pending ? "Sending…" : "Send reset link"}
          </button>
        </form>
      )}
      <p>
        <Link to={auth.urls.signIn}>Back to sign in</Link>
      </p>
    </AuthPage>
  );
}
