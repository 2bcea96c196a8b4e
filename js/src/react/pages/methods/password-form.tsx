import { type FormEvent } from "react";
import { AuthLink } from "../../auth-link.js";
import { isKnownError } from "../../../known-error.js";
import { useAuth } from "../../use-auth.js";
import { useMessages } from "../../messages.js";
import { EmailField, Field, FormError, formValue, SubmitButton, useSubmit } from "../layout.js";
import { noteVerificationSent } from "../../verification-note.js";
import type { MethodProps } from "./types.js";

/** The field a refusal of the service is about, so the message is shown there. */
function fieldOf(error: unknown): "email" | "password" | null {
  if (isKnownError(error, "USER_EMAIL_ALREADY_EXISTS")) return "email";
  if (isKnownError(error, "PASSWORD_REQUIREMENTS_NOT_MET")) return "password";
  return null;
}

/** The e-mail + password form of the sign-in and sign-up pages. */
export function PasswordForm({ mode, returnTo, config, onSignedIn, onMfaRequired }: MethodProps) {
  const auth = useAuth();
  const m = useMessages();
  const submit = useSubmit();
  const signIn = mode === "sign-in";

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    if (!submit.validate(form)) return;
    const email = formValue(form, "email");
    const password = formValue(form, "password");
    const outcome = await submit.run(() =>
      signIn ? auth.signIn(email, password) : auth.signUp(email, password, { afterAuthReturnTo: returnTo }),
    );
    if (outcome.ok) {
      // The service sent the new user a verification e-mail: the provider's notice says so.
      if (!signIn) noteVerificationSent(outcome.value);
      return onSignedIn(!signIn);
    }
    if (isKnownError(outcome.error, "MULTI_FACTOR_AUTHENTICATION_REQUIRED") && outcome.error.attemptCode) {
      return onMfaRequired(outcome.error.attemptCode);
    }
    const field = fieldOf(outcome.error);
    if (field) submit.showOnField(form, field, outcome.error);
  }

  return (
    <form onSubmit={onSubmit} className="authmw-form" noValidate aria-busy={submit.pending} data-testid={`${mode}-form`}>
      <EmailField submit={submit} autoComplete={signIn ? (config?.passkeyEnabled ? "username webauthn" : "username") : "email"} />
      <Field
        label={m.password}
        name="password"
        type="password"
        autoComplete={signIn ? "current-password" : "new-password"}
        submit={submit}
      />
      {signIn && (
        <AuthLink to={auth.urls.forgotPassword} className="authmw-aside-link" data-testid="forgot-password-link">
          {m.forgotPasswordLink}
        </AuthLink>
      )}
      <FormError id={submit.formErrorId} message={submit.error} />
      <SubmitButton
        pending={submit.pending}
        label={signIn ? m.signInButton : m.signUpButton}
        pendingLabel={signIn ? m.signInPending : m.signUpPending}
      />
    </form>
  );
}
