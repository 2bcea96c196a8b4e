import { useState, type FormEvent } from "react";
import { MultiFactorAuthenticationRequired, UserEmailAlreadyExists } from "../../errors";
import { useAuth } from "../hooks";
import { describeError } from "../messages";
import { Field, FormError, formStyle, formValue, Status, useReturnTo, useSubmit } from "./layout";
import { useFinishSignIn } from "./magic-link-callback";
import { MfaPrompt } from "./mfa";

// The service refuses magic links for an address a password account uses but has not verified.
const sendMessage = (error: unknown) =>
  error instanceof UserEmailAlreadyExists
    ? "An account with this e-mail address exists, but the address is not verified yet: sign in with your password."
    : describeError(error);

type Step = { step: "email" } | { step: "code"; email: string; nonce: string } | { step: "mfa"; attemptCode: string };

/**
 * Magic-link sign-in on the sign-in page: sends the e-mail, then says "check your inbox" and takes
 * the 6-character code of the e-mail (the link itself leads to magic-link-callback).
 */
export function MagicLinkSignIn() {
  const auth = useAuth();
  const returnTo = useReturnTo();
  const finish = useFinishSignIn();
  const [state, setState] = useState<Step>({ step: "email" });
  const send = useSubmit(sendMessage);
  const verify = useSubmit();

  async function onSend(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const email = formValue(event.currentTarget, "email");
    const outcome = await send.run(() => auth.sendMagicLinkEmail(email, { afterAuthReturnTo: returnTo }));
    if (outcome.ok) setState({ step: "code", email, nonce: outcome.value.nonce });
  }

  async function onCode(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (state.step !== "code") return;
    const otp = formValue(event.currentTarget, "otp");
    const outcome = await verify.run(() => auth.signInWithMagicLink(otp, state.nonce));
    if (outcome.ok) finish(outcome.value);
    else if (outcome.error instanceof MultiFactorAuthenticationRequired && outcome.error.attemptCode) {
      setState({ step: "mfa", attemptCode: outcome.error.attemptCode });
    }
  }

  if (state.step === "mfa") return <MfaPrompt attemptCode={state.attemptCode} onSignedIn={finish} />;

  if (state.step === "code") {
    return (
      <div data-testid="magic-link-sent">
        <Status message={`Check your inbox: we sent a sign-in link to ${state.email}.`} />
        <p>Open the link in the e-mail, or type the 6-character code from it here.</p>
        <form onSubmit={onCode} style={formStyle} aria-busy={verify.pending} data-testid="magic-link-code-form">
          <Field
            label="Code from the e-mail"
            name="otp"
            type="text"
            autoComplete="one-time-code"
            minLength={6}
            maxLength={6}
            errorId={verify.errorId}
          />
          <FormError id={verify.formErrorId} message={verify.error} />
          <button type="submit" disabled={verify.pending}>
            {verify.pending ? "Signing in…" : "Sign in with code"}
          </button>
        </form>
        <p>
          <button type="button" className="authmw-link-button" onClick={() => setState({ step: "email" })}>
            Use another e-mail address
          </button>
        </p>
      </div>
    );
  }

  return (
    <form onSubmit={onSend} style={formStyle} aria-busy={send.pending} data-testid="magic-link-form">
      <Field label="E-mail" name="email" type="email" autoComplete="email" errorId={send.errorId} />
      <FormError id={send.formErrorId} message={send.error} />
      <button type="submit" disabled={send.pending}>
        {send.pending ? "Sending…" : "Send sign-in link"}
      </button>
    </form>
  );
}
