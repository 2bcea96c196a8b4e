import { useCallback, useEffect, useState, type FormEvent } from "react";
import { Link } from "react-router";
import { isKnownError } from "../../known-error.js";
import type { RestrictedUser } from "../../restricted-session.js";
import { withReturnTo } from "../../return-to.js";
import { useAuthRedirect } from "../redirect.js";
import { useAuth } from "../use-auth.js";
import { describeCodeError, describeError, useMessages, type Messages } from "../messages.js";
import { AuthPage, Field, FormError, formValue, Status, SubmitButton, useReturnTo, useSubmit } from "./layout.js";

type State =
  | { step: "loading" }
  /** No session (or an anonymous one): sign in first. */
  | { step: "signed-out" }
  | { step: "restricted"; user: RestrictedUser }
  /** The user may continue (verified here, in another tab, or never restricted). */
  | { step: "done" };

const codeMessage = (error: unknown, m: Messages) => describeCodeError(error, m.verificationLinkNoun, m);

/**
 * {handler}/onboarding: where an app that does not accept restricted users (API 2.8) sends
 * them. A user whose e-mail is not verified pastes the code (or link) of the verification
 * e-mail, or has it sent again, and continues to after_auth_return_to once verified; a user an
 * administrator restricted reads the administrator's reason.
 */
export function Onboarding() {
  const auth = useAuth();
  const m = useMessages();
  const leave = useAuthRedirect();
  const returnTo = useReturnTo();
  const [state, setState] = useState<State>({ step: "loading" });
  const [loadError, setLoadError] = useState<unknown>(null);
  const verify = useSubmit(codeMessage);
  const resend = useSubmit();
  const check = useSubmit();
  const leaving = useSubmit();
  const [status, setStatus] = useState<string | null>(null);

  const show = useCallback(
    (user: RestrictedUser | null) =>
      setState(user === null ? { step: "signed-out" } : user.isRestricted ? { step: "restricted", user } : { step: "done" }),
    [],
  );
  const load = useCallback(() => {
    setLoadError(null);
    auth.restrictedSession.getUser().then(show, setLoadError);
  }, [auth, show]);
  useEffect(load, [load]);

  async function onVerify(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    if (!verify.validate(form)) return;
    setStatus(null);
    const outcome = await verify.run(() => auth.restrictedSession.verifyEmail(formValue(form, "code")));
    if (outcome.ok) show(outcome.value);
    else if (isKnownError(outcome.error, "VERIFICATION_ERROR")) verify.showOnField(form, "code", outcome.error);
  }

  const next = returnTo ?? auth.urls.afterSignIn;
  const user = state.step === "restricted" ? state.user : null;
  const reason = user?.restrictedReason?.type;
  const title =
    state.step === "done"
      ? m.onboardingDoneTitle
      : reason === "restricted_by_administrator"
        ? m.onboardingRestrictedTitle
        : reason && reason !== "email_not_verified"
          ? m.onboardingIncompleteTitle
          : m.onboardingVerifyTitle;
  const signOut = (
    <button
      type="button"
      disabled={leaving.pending}
      data-testid="onboarding-sign-out"
      onClick={async () => {
        if ((await leaving.run(() => auth.restrictedSession.signOut())).ok) leave(auth.urls.afterSignOut);
      }}
    >
      {m.signOut}
    </button>
  );

  if (loadError) {
    return (
      <AuthPage title={title}>
        <FormError message={describeError(loadError, m)} />
        <button type="button" className="authmw-primary" onClick={load}>
          {m.tryAgain}
        </button>
      </AuthPage>
    );
  }
  return (
    <AuthPage title={title} busy={state.step === "loading" ? m.loading : undefined}>
      {state.step === "signed-out" && (
        <>
          <p className="authmw-intro">{m.onboardingSignInText}</p>
          <Link className="authmw-button authmw-primary" to={withReturnTo(auth.urls.signIn, next)}>
            {m.signIn}
          </Link>
        </>
      )}
      {state.step === "done" && (
        <>
          <p role="status" className="authmw-notice" data-testid="onboarding-done">
            {m.onboardingDone}
          </p>
          <button type="button" className="authmw-primary" data-testid="onboarding-continue" autoFocus onClick={() => leave(next)}>
            {m.continue}
          </button>
        </>
      )}
      {user && reason === "email_not_verified" && user.primaryEmail && (
        <>
          <p className="authmw-intro">{m.onboardingVerifyText(user.primaryEmail)}</p>
          <form onSubmit={onVerify} className="authmw-form" noValidate aria-busy={verify.pending} data-testid="onboarding-code-form">
            <Field
              label={m.onboardingCodeLabel}
              name="code"
              type="text"
              autoComplete="one-time-code"
              missingMessage={m.codeRequired}
              submit={verify}
              testId="onboarding-code"
            />
            <FormError id={verify.formErrorId} message={verify.error} />
            <SubmitButton pending={verify.pending} label={m.onboardingVerifyButton} pendingLabel={m.onboardingVerifying} />
          </form>
          <FormError message={resend.error ?? check.error ?? leaving.error} />
          <Status message={status} testId="onboarding-status" />
          <div className="authmw-actions">
            <button
              type="button"
              disabled={resend.pending}
              data-testid="onboarding-send-again"
              onClick={async () => {
                setStatus(null);
                if ((await resend.run(() => auth.restrictedSession.sendVerificationEmail())).ok) setStatus(m.newVerificationEmailSent);
              }}
            >
              {resend.pending ? m.sending : m.onboardingSendAgain}
            </button>
            <button
              type="button"
              disabled={check.pending}
              data-testid="onboarding-check-again"
              onClick={async () => {
                setStatus(null);
                const outcome = await check.run(() => auth.restrictedSession.getUser());
                if (outcome.ok && outcome.value?.isRestricted) setStatus(m.onboardingNotVerifiedYet);
                else if (outcome.ok) show(outcome.value);
              }}
            >
              {m.onboardingCheckAgain}
            </button>
            {signOut}
          </div>
        </>
      )}
      {user && reason === "email_not_verified" && !user.primaryEmail && (
        <>
          <p className="authmw-intro">{m.onboardingNoEmail}</p>
          <FormError message={leaving.error} />
          {signOut}
        </>
      )}
      {user && reason === "restricted_by_administrator" && (
        <>
          <p className="authmw-intro">{m.onboardingRestrictedText}</p>
          {user.restrictedByAdminReason && (
            <figure className="authmw-quote" data-testid="onboarding-admin-reason">
              <figcaption>{m.onboardingReasonLabel}</figcaption>
              <blockquote>{user.restrictedByAdminReason}</blockquote>
            </figure>
          )}
          <FormError message={leaving.error} />
          {signOut}
        </>
      )}
      {user && reason !== "email_not_verified" && reason !== "restricted_by_administrator" && (
        <>
          <p className="authmw-intro">{m.onboardingIncompleteText}</p>
          <FormError message={leaving.error} />
          {signOut}
        </>
      )}
    </AuthPage>
  );
}
