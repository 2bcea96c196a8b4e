import { useState, type FormEvent } from "react";
import { Link } from "react-router";
import { VerificationCodeError } from "../../errors";
import type { SignInResult } from "../../models";
import { useAuth } from "../hooks";
import { describeError } from "../messages";
import { Field, FormError, formStyle, formValue, useSubmit } from "./layout";

/**
 * Asks for the 6-digit TOTP code after MULTI_FACTOR_AUTHENTICATION_REQUIRED and completes the
 * sign-in with the attempt code (POST /auth/mfa/sign-in). A wrong code can be retried; an expired
 * attempt means signing in again.
 */
export function MfaPrompt({ attemptCode, onSignedIn }: { attemptCode: string; onSignedIn(result: SignInResult): void }) {
  const auth = useAuth();
  const [expired, setExpired] = useState(false);
  const submit = useSubmit((error) =>
    error instanceof VerificationCodeError ? "This sign-in attempt has expired. Please sign in again." : describeError(error),
  );

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const totp = formValue(event.currentTarget, "totp").replace(/\s/g, "");
    const outcome = await submit.run(() => auth.signInWithMfa(attemptCode, totp));
    if (outcome.ok) onSignedIn(outcome.value);
    else if (outcome.error instanceof VerificationCodeError) setExpired(true);
  }

  return (
    <section aria-labelledby="authmw-mfa-heading" data-testid="mfa-prompt">
      <h2 id="authmw-mfa-heading">Two-factor authentication</h2>
      <p>Enter the 6-digit code from your authenticator app.</p>
      <form onSubmit={onSubmit} style={formStyle} aria-busy={submit.pending} data-testid="mfa-form">
        <Field
          label="Authentication code"
          name="totp"
          type="text"
          inputMode="numeric"
          autoComplete="one-time-code"
          pattern="\s*\d{3}\s*\d{3}\s*"
          maxLength={8}
          errorId={submit.errorId}
        />
        <FormError id={submit.formErrorId} message={submit.error} />
        <button type="submit" disabled={submit.pending || expired}>
          {submit.pending ? "Verifying…" : "Verify"}
        </button>
      </form>
      {expired && (
        <p>
          <Link to={auth.urls.signIn}>Sign in again</Link>
        </p>
      )}
    </section>
  );
}
