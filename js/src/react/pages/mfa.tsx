import { useCallback, useState, type FormEvent, type ReactNode } from "react";
import { AuthLink } from "../auth-link.js";
import { isKnownError } from "../../known-error.js";
import type { SignInResult } from "../../models.js";
import { useAuth } from "../use-auth.js";
import { describeError, useMessages, type Messages } from "../messages.js";
import { AuthPage, Field, FormError, formValue, SubmitButton, useSubmit } from "./layout.js";

const mfaMessage = (error: unknown, m: Messages) =>
  isKnownError(error, "VERIFICATION_ERROR") ? m.mfaAttemptExpired : describeError(error, m);

/** On an OAuth callback a wrong code ends the attempt (spec: "Please try signing in again"). */
const oauthMfaMessage = (error: unknown, m: Messages) =>
  isKnownError(error, "INVALID_TOTP_CODE") ? m.oauthInvalidTotpCode : mfaMessage(error, m);

/**
 * Asks for the 6-digit TOTP code after MULTI_FACTOR_AUTHENTICATION_REQUIRED and completes the
 * sign-in with the attempt code (POST /auth/mfa/sign-in). A wrong code can be retried; an expired
 * attempt means signing in again.
 */
export function MfaPrompt({
  attemptCode,
  onSignedIn,
  wrongCodeEnds = false,
  heading = true,
}: MfaPromptProps & {
  /** The prompt's own heading and intro; false when the page's title is the prompt's (MfaPage). */
  heading?: boolean;
}) {
  const auth = useAuth();
  const m = useMessages();
  const [expired, setExpired] = useState(false);
  const submit = useSubmit(wrongCodeEnds ? oauthMfaMessage : mfaMessage);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!submit.validate(event.currentTarget)) return;
    const totp = formValue(event.currentTarget, "totp").replace(/\s/g, "");
    const outcome = await submit.run(() => auth.signInWithMfa(attemptCode, totp));
    if (outcome.ok) onSignedIn(outcome.value);
    else if (isKnownError(outcome.error, "VERIFICATION_ERROR") || (wrongCodeEnds && isKnownError(outcome.error, "INVALID_TOTP_CODE"))) {
      setExpired(true);
    }
  }

  return (
    <section aria-labelledby={heading ? "authmw-mfa-heading" : undefined} className="authmw-stack" data-testid="mfa-prompt">
      {heading && (
        <>
          <h2 id="authmw-mfa-heading">{m.mfaTitle}</h2>
          <p className="authmw-hint">{m.mfaIntro}</p>
        </>
      )}
      <form onSubmit={onSubmit} className="authmw-form" noValidate aria-busy={submit.pending} data-testid="mfa-form">
        <TotpCodeField label={m.mfaCodeLabel} name="totp" submit={submit} autoFocus />
        <FormError id={submit.formErrorId} message={submit.error} />
        {expired ? (
          <AuthLink className="authmw-button authmw-primary" to={auth.urls.signIn}>
            {m.signInAgain}
          </AuthLink>
        ) : (
          <SubmitButton pending={submit.pending} label={m.verify} pendingLabel={m.verifying} />
        )}
      </form>
    </section>
  );
}

interface MfaPromptProps {
  attemptCode: string;
  onSignedIn(result: SignInResult): void;
  /** A wrong code ends the attempt (the OAuth callback) instead of asking again. */
  wrongCodeEnds?: boolean;
}

/**
 * The two-factor step as a page of its own: its title replaces the sign-in heading; the footer
 * leads back to sign-in (`onBack`, else the sign-in page), where the other methods are.
 */
export function MfaPage({ onBack, ...props }: MfaPromptProps & { onBack?: () => void }) {
  const m = useMessages();
  const { urls } = useAuth();
  return (
    <AuthPage
      title={m.mfaTitle}
      subtitle={m.mfaIntro}
      footer={
        <p>
          {onBack ? (
            <button type="button" className="authmw-link-button" onClick={onBack} data-testid="mfa-back">
              {m.backToSignIn}
            </button>
          ) : (
            <AuthLink to={urls.signIn} data-testid="mfa-back">
              {m.backToSignIn}
            </AuthLink>
          )}
        </p>
      }
    >
      <MfaPrompt {...props} heading={false} />
    </AuthPage>
  );
}

/**
 * The MFA step for a page that signs in by itself (an OAuth or magic-link callback): hand the
 * sign-in's error to `catchMfa`; for MULTI_FACTOR_AUTHENTICATION_REQUIRED it returns true and
 * `prompt` is the code prompt (render it instead of the page), which finishes the sign-in.
 *
 *     const mfa = useMfaStep((result) => leave(result.isNewUser ? afterSignUp : afterSignIn));
 *     try { await signIn(); } catch (error) { if (!mfa.catchMfa(error)) show(error); }
 *     if (mfa.prompt) return <AuthPage title={...}>{mfa.prompt}</AuthPage>;
 */
export function useMfaStep(onSignedIn: (result: SignInResult) => void): {
  attemptCode: string | null;
  catchMfa(error: unknown): boolean;
  prompt: ReactNode;
} {
  const [attemptCode, setAttemptCode] = useState<string | null>(null);
  const catchMfa = useCallback((error: unknown) => {
    if (!(isKnownError(error, "MULTI_FACTOR_AUTHENTICATION_REQUIRED")) || !error.attemptCode) return false;
    setAttemptCode(error.attemptCode);
    return true;
  }, []);
  const prompt = attemptCode ? <MfaPrompt attemptCode={attemptCode} onSignedIn={onSignedIn} /> : null;
  return { attemptCode, catchMfa, prompt };
}

/**
 * The 6-digit code field of an authenticator app (spaces allowed, as apps show "123 456"); a
 * pasted code loses its spaces and dashes ("123-456", " 123 456 ").
 */
export function TotpCodeField({
  label,
  name,
  submit,
  autoFocus,
}: {
  label: string;
  name: string;
  submit: ReturnType<typeof useSubmit>;
  autoFocus?: boolean;
}) {
  const m = useMessages();
  return (
    <Field
      label={label}
      name={name}
      type="text"
      inputMode="numeric"
      autoComplete="one-time-code"
      autoFocus={autoFocus}
      pattern="\s*\d{3}\s*\d{3}\s*"
      maxLength={8}
      onPaste={(event) => {
        const digits = event.clipboardData.getData("text").replace(/[\s-]/g, "");
        if (!/^\d{6}$/.test(digits)) return;
        event.preventDefault();
        event.currentTarget.value = digits;
      }}
      missingMessage={m.totpRequired}
      invalidMessage={m.totpInvalid}
      submit={submit}
    />
  );
}
