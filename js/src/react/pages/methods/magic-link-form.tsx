import { useState, type FormEvent } from "react";
import { isKnownError } from "../../../known-error.js";
import { useAuth } from "../../use-auth.js";
import { describeCodeError, describeError, useMessages, type Messages } from "../../messages.js";
import { EmailField, Field, FormError, formValue, Status, SubmitButton, useSubmit } from "../layout.js";
import { Standalone } from "./standalone.js";
import type { MethodProps } from "./types.js";

// The service refuses magic links for an address a password account uses but has not verified.
const sendMessage = (error: unknown, m: Messages) =>
  isKnownError(error, "USER_EMAIL_ALREADY_EXISTS") ? m.magicLinkUnverifiedAccount : describeError(error, m);

const codeMessage = (error: unknown, m: Messages) => describeCodeError(error, m.codeNoun, m);

/**
 * Sign-in (or sign-up) with an e-mail link: sends the e-mail, then says "check your inbox" and
 * takes the 6-character code of the e-mail (the link itself leads to magic-link-callback).
 */
export function MagicLinkForm({ returnTo, onSignedIn, onMfaRequired }: MethodProps) {
  const auth = useAuth();
  const m = useMessages();
  const [sent, setSent] = useState<{ email: string; nonce: string } | null>(null);
  const send = useSubmit(sendMessage);
  const verify = useSubmit(codeMessage);

  async function onSend(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!send.validate(event.currentTarget)) return;
    const email = formValue(event.currentTarget, "email");
    const outcome = await send.run(() => auth.sendMagicLinkEmail(email, { afterAuthReturnTo: returnTo }));
    if (outcome.ok) setSent({ email, nonce: outcome.value.nonce });
  }

  async function onCode(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!sent || !verify.validate(event.currentTarget)) return;
    const otp = formValue(event.currentTarget, "otp").trim();
    const outcome = await verify.run(() => auth.signInWithMagicLink(otp, sent.nonce));
    if (outcome.ok) onSignedIn(outcome.value.isNewUser);
    else if (isKnownError(outcome.error, "MULTI_FACTOR_AUTHENTICATION_REQUIRED") && outcome.error.attemptCode) {
      onMfaRequired(outcome.error.attemptCode);
    }
  }

  if (sent) {
    return (
      <div data-testid="magic-link-sent" className="authmw-stack">
        <Status message={m.magicLinkSent(sent.email)} />
        <p className="authmw-hint">{m.magicLinkCodeHint}</p>
        <form onSubmit={onCode} className="authmw-form" noValidate aria-busy={verify.pending} data-testid="magic-link-code-form">
          <Field
            label={m.magicLinkCodeLabel}
            name="otp"
            type="text"
            autoComplete="one-time-code"
            minLength={6}
            maxLength={6}
            missingMessage={m.codeRequired}
            invalidMessage={m.codeInvalid}
            submit={verify}
          />
          <FormError id={verify.formErrorId} message={verify.error} />
          <SubmitButton pending={verify.pending} label={m.signInWithCode} pendingLabel={m.signInPending} />
        </form>
        <button type="button" className="authmw-link-button" onClick={() => setSent(null)}>
          {m.useAnotherEmail}
        </button>
      </div>
    );
  }

  return (
    <form onSubmit={onSend} className="authmw-form" noValidate aria-busy={send.pending} data-testid="magic-link-form">
      <EmailField submit={send} />
      <FormError id={send.formErrorId} message={send.error} />
      <SubmitButton pending={send.pending} label={m.sendSignInLink} pendingLabel={m.sending} />
    </form>
  );
}

/** The e-mail link form on its own (for an app's own page): finishes the sign-in like the handler does. */
export function MagicLinkSignIn() {
  return <Standalone mode="sign-in" Form={MagicLinkForm} />;
}
