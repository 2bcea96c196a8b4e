import { useEffect, useRef, useState } from "react";
import { isKnownError } from "../../../known-error.js";
import type { ProjectConfig } from "../../../models.js";
import { cancelPasskeyCeremony, isPasskeyCancel, passkeyAutofillSupported, passkeysSupported } from "../../../passkey-support.js";
import { useAuth } from "../../use-auth.js";
import { describePasskeyError, useMessages } from "../../messages.js";
import { FormError } from "../layout.js";
import type { AuthMode, MethodProps } from "./types.js";

/** Inputs the browser may offer passkeys in (conditional UI): autocomplete ending in "webauthn". */
const AUTOFILL_INPUT = "input[autocomplete$='webauthn']";

/** Passkeys sign existing users in; the sign-up page has no passkey button. */
export function passkeyButtonShown(config: ProjectConfig, mode: AuthMode): boolean {
  return config.passkeyEnabled && mode === "sign-in";
}

/**
 * "Sign in with a passkey": the browser asks which passkey (service-api A6.7); a user with TOTP then
 * gets the MFA prompt. Where the browser supports it, passkeys are also offered in the e-mail
 * field's autofill (conditional UI) while the page is open.
 */
export function PasskeyButton({ onSignedIn, onMfaRequired }: MethodProps) {
  const auth = useAuth();
  const m = useMessages();
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const live = useRef(true);

  // Success and MFA leave the page even when it re-rendered meanwhile (the new session shows
  // "signed in" and unmounts this button); only messages need it mounted.
  const settle = (outcome: { ok: true; isNewUser: boolean } | { ok: false; error: unknown }, quietCancel: boolean) => {
    if (outcome.ok) return onSignedIn(outcome.isNewUser);
    const failure = outcome.error;
    if (isKnownError(failure, "MULTI_FACTOR_AUTHENTICATION_REQUIRED") && failure.attemptCode) return onMfaRequired(failure.attemptCode);
    if (!live.current || (quietCancel && isPasskeyCancel(failure))) return;
    setError(describePasskeyError(failure, m));
  };

  const attempt = (autofill: boolean) =>
    auth.signInWithPasskey({ autofill }).then(
      (result) => ({ ok: true as const, isNewUser: result.isNewUser }),
      (error: unknown) => ({ ok: false as const, error }),
    );

  useEffect(() => {
    live.current = true;
    let active = true;
    void (async () => {
      if (!(await passkeyAutofillSupported()) || !active || !document.querySelector(AUTOFILL_INPUT)) return;
      const outcome = await attempt(true);
      // The autofill offer is not something the user asked for: what the browser says about it
      // (aborted by the button's own request, the field gone after switching to the e-mail link
      // tab, no passkey) is never shown. Once a passkey was picked, the service's answer is.
      if (!outcome.ok && isKnownError(outcome.error, "PASSKEY_WEBAUTHN_ERROR")) return;
      if (active || outcome.ok) settle(outcome, true);
    })();
    return () => {
      active = false;
      live.current = false;
      void cancelPasskeyCeremony().catch(() => {});
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps -- one autofill request per mount
  }, []);

  async function onClick() {
    setError(null);
    if (!passkeysSupported()) return setError(m.passkeysUnsupported);
    setPending(true);
    const outcome = await attempt(false);
    if (live.current) setPending(false);
    settle(outcome, false);
  }

  return (
    <div className="authmw-stack">
      <button
        type="button"
        className="authmw-button authmw-method"
        onClick={onClick}
        disabled={pending}
        aria-disabled={pending || undefined}
        data-testid="passkey-sign-in"
      >
        <PasskeyIcon />
        {pending ? m.passkeySignInPending : m.passkeySignIn}
      </button>
      <FormError message={error} />
    </div>
  );
}

function PasskeyIcon() {
  return (
    <svg aria-hidden="true" width="18" height="18" viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="2">
      <circle cx="8" cy="8" r="4" />
      <path d="M2 21v-2a5 5 0 0 1 5-5h2" />
      <circle cx="17" cy="11" r="2.5" />
      <path d="M17 13.5V21l1.5-1.5L17 18l1.5-1.5L17 15" />
    </svg>
  );
}
