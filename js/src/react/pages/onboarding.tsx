import { lazy, Suspense, useCallback, useEffect, useState, type FormEvent } from "react";
import { AuthLink } from "../auth-link.js";
import { isKnownError } from "../../known-error.js";
import type { RestrictedUser } from "../../restricted-session.js";
import { withReturnTo } from "../../return-to.js";
import { useAuthRedirect } from "../redirect.js";
import { useAuth } from "../use-auth.js";
import { describeCodeError, describeError, useMessages, type Messages } from "../messages.js";
import { KIT } from "./account/account-settings.js";
import { SectionKitContext } from "./account/kit.js";
import { AuthPage, Field, FormError, formValue, Status, SubmitButton, useReturnTo, useSubmit } from "./layout.js";

type State =
  | { step: "loading" }
  /** No session (or an anonymous one): sign in first. */
  | { step: "signed-out" }
  | { step: "restricted"; user: RestrictedUser }
  /** The user may continue (verified here, in another tab, or never restricted). */
  | { step: "done" };

const codeMessage = (error: unknown, m: Messages) => describeCodeError(error, m.verificationLinkNoun, m);
const AddEmail = lazy(() => import("./onboarding-email.js"));

/**
 * {handler}/onboarding: where an app that does not accept restricted users (API 2.8) sends
 * them. A user whose e-mail is not verified pastes the code (or link) of the verification
 * e-mail, or has it sent again, and continues to after_auth_return_to once verified; a user
 * without an e-mail address (an OAuth provider shared none), or who mistyped it, adds one first.
 * A user an administrator restricted reads the administrator's reason.
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
  // The user asked to replace an unverified address ("Use another e-mail address").
  const [replacing, setReplacing] = useState(false);

  const show = useCallback(
    (user: RestrictedUser | null) =>
      setState(user === null ? { step: "signed-out" } : user.isRestricted ? { step: "restricted", user } : { step: "done" }),
    [],
  );
  // Once, not again whenever the app's user state changes (adding an address reloads it): a
  // reload then would replace what the page shows, an error included.
  const session = auth.restrictedSession;
  const load = useCallback(() => {
    setLoadError(null);
    session.getUser().then(show, setLoadError);
  }, [session, show]);
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
  const email = reason === "email_not_verified" && !replacing && user?.primaryEmail;
  // Without an address to verify (or replacing it), the user adds one.
  const adding = reason === "email_not_verified" && !email;
  const [title, intro] =
    state.step === "done"
      ? [m.onboardingDoneTitle]
      : state.step === "signed-out"
        ? [m.onboardingVerifyTitle, m.onboardingSignInText]
        : email
          ? [m.onboardingVerifyTitle, m.onboardingVerifyText(email)]
          : adding
            ? [m.addEmailLabel, !replacing && m.onboardingNoEmail]
            : reason === "restricted_by_administrator"
              ? [m.onboardingRestrictedTitle, m.onboardingRestrictedText]
              : reason
                ? [m.onboardingIncompleteTitle, m.onboardingIncompleteText]
                : [m.onboardingVerifyTitle];

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
      {intro && <p className="authmw-intro">{intro}</p>}
      {state.step === "signed-out" && (
        <AuthLink className="authmw-button authmw-primary" to={withReturnTo(auth.urls.signIn, next)}>
          {m.signIn}
        </AuthLink>
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
      {email && (
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
          <button type="button" className="authmw-link-button" data-testid="onboarding-replace-email" onClick={() => (setStatus(null), setReplacing(true))}>
            {m.useAnotherEmail}
          </button>
        </form>
      )}
      {adding && (
        <SectionKitContext.Provider value={KIT}>
          <Suspense>
            <AddEmail
              onCancel={replacing ? () => setReplacing(false) : undefined}
              onAdded={(added, email) => {
                setReplacing(false);
                show(added);
                if (added?.isRestricted) setStatus(m.verificationEmailSentTo(email));
              }}
            />
          </Suspense>
        </SectionKitContext.Provider>
      )}
      {user?.restrictedByAdminReason && reason === "restricted_by_administrator" && (
        <figure className="authmw-quote" data-testid="onboarding-admin-reason">
          <figcaption>{m.onboardingReasonLabel}</figcaption>
          <blockquote>{user.restrictedByAdminReason}</blockquote>
        </figure>
      )}
      {user && (
        <>
          <FormError message={resend.error ?? check.error ?? leaving.error} />
          <Status message={status} testId="onboarding-status" />
          <div className="authmw-actions">
            {email && (
              <>
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
              </>
            )}
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
          </div>
        </>
      )}
    </AuthPage>
  );
}
