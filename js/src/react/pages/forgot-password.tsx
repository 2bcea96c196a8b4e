import { useState, type FormEvent } from "react";
import { AuthLink } from "../auth-link.js";
import { useAuth } from "../use-auth.js";
import { useMessages } from "../messages.js";
import { AuthPage, EmailField, FormError, formValue, SubmitButton, useSubmit } from "./layout.js";

/** {handler}/forgot-password: asks for the e-mail and sends the password-reset link. */
export function ForgotPassword() {
  const auth = useAuth();
  const m = useMessages();
  const submit = useSubmit();
  const [sentTo, setSentTo] = useState<string | null>(null);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!submit.validate(event.currentTarget)) return;
    const email = formValue(event.currentTarget, "email");
    const outcome = await submit.run(() => auth.sendForgotPasswordEmail(email));
    if (outcome.ok) setSentTo(email);
  }

  return (
    <AuthPage
      title={m.forgotPasswordTitle}
      footer={
        <p>
          <AuthLink to={auth.urls.signIn}>{m.backToSignIn}</AuthLink>
        </p>
      }
    >
      {sentTo ? (
        <p role="status" className="authmw-notice" data-testid="forgot-password-sent">
          {m.resetLinkSent(sentTo)}
        </p>
      ) : (
        <form onSubmit={onSubmit} className="authmw-form" noValidate aria-busy={submit.pending} data-testid="forgot-password-form">
          <p className="authmw-intro">{m.forgotPasswordIntro}</p>
          <EmailField submit={submit} />
          <FormError id={submit.formErrorId} message={submit.error} />
          <SubmitButton pending={submit.pending} label={m.sendResetLink} pendingLabel={m.sending} />
        </form>
      )}
    </AuthPage>
  );
}
