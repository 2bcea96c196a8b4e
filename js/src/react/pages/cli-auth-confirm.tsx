import { useEffect, useRef, useState } from "react";
import { useSearchParams } from "react-router";
import { AuthLink, useHere } from "../auth-link.js";
import { HttpStatusError } from "../../http-errors.js";
import { withReturnTo } from "../../return-to.js";
import { useAuth } from "../use-auth.js";
import { describeError, useMessages, type Messages } from "../messages.js";
import { AuthPage, FormError, useSubmit } from "./layout.js";

type Step =
  | { step: "loading" }
  | { step: "sign-in" }
  | { step: "confirm" }
  | { step: "done" }
  | { step: "cancelled" }
  | { step: "failed"; message: string };

/** The service answers a code it does not know (or no longer: used, expired) with a plain 400. */
const linkMessage = (error: unknown, m: Messages) =>
  error instanceof HttpStatusError && error.status === 400 ? m.cliAuthLinkNoLonger : describeError(error, m);

/**
 * {handler}/cli-auth-confirm?login_code=...: the page of a command-line tool's sign-in link
 * (CLI sign-in, API 2.8). Signed out, it sends the person to sign in (coming back here);
 * signed in, it asks whether to sign the tool in as them and, on the button only, hands the
 * tool this browser's session. Nothing happens on arrival: a link another site sends the
 * browser to cannot sign a tool in.
 */
export function CliAuthConfirm() {
  const auth = useAuth();
  const m = useMessages();
  const [params] = useSearchParams();
  const code = params.get("login_code");
  const [state, setState] = useState<Step>(code ? { step: "loading" } : { step: "failed", message: m.cliAuthLinkIncomplete });
  const checkedFor = useRef<string | null>(null);
  const confirm = useSubmit(linkMessage);

  useEffect(() => {
    if (!code || auth.status === "loading") return;
    const key = `${auth.status}:${code}`;
    if (checkedFor.current === key) return;
    checkedFor.current = key;
    setState({ step: "loading" });
    auth.checkCliLogin(code).then(
      () => setState(auth.status === "signed-out" ? { step: "sign-in" } : { step: "confirm" }),
      (error: unknown) => setState({ step: "failed", message: linkMessage(error, m) }),
    );
  }, [auth, code, m]);

  const here = useHere();
  const who = auth.user ? (auth.user.primaryEmail ?? auth.user.displayName ?? null) : null;

  async function signInTool() {
    const outcome = await confirm.run(() => auth.confirmCliLogin(code!));
    if (outcome.ok) setState({ step: "done" });
  }

  return (
    <AuthPage
      title={state.step === "failed" ? m.linkFailedTitle : m.cliAuthTitle}
      busy={state.step === "loading" ? m.checkingCliLink : undefined}
    >
      {state.step === "sign-in" && (
        <div data-testid="cli-auth-sign-in" className="authmw-stack">
          <p>{m.cliAuthSignIn}</p>
          <div className="authmw-actions">
            <AuthLink className="authmw-button authmw-primary" to={withReturnTo(auth.urls.signIn, here)} data-testid="cli-auth-sign-in-link">
              {m.signIn}
            </AuthLink>
          </div>
        </div>
      )}
      {state.step === "confirm" && (
        <div data-testid="cli-auth-confirm" className="authmw-stack">
          {who && (
            <p>
              {m.signedInAs} <strong data-testid="cli-auth-user">{who}</strong>.
            </p>
          )}
          <p>{m.cliAuthQuestion}</p>
          <FormError id={confirm.formErrorId} message={confirm.error} />
          <div className="authmw-actions">
            <button
              type="button"
              className="authmw-primary"
              disabled={confirm.pending}
              onClick={signInTool}
              data-testid="cli-auth-accept"
            >
              {confirm.pending ? m.cliAuthConfirming : m.cliAuthConfirm}
            </button>
            <button type="button" disabled={confirm.pending} onClick={() => setState({ step: "cancelled" })} data-testid="cli-auth-cancel">
              {m.cliAuthCancel}
            </button>
          </div>
        </div>
      )}
      {state.step === "done" && (
        <p role="status" className="authmw-notice" data-testid="cli-auth-done">
          {m.cliAuthDone}
        </p>
      )}
      {state.step === "cancelled" && <p role="status">{m.cliAuthCancelled}</p>}
      {state.step === "failed" && (
        <p role="alert" className="authmw-error" data-testid="auth-error">
          {state.message}
        </p>
      )}
    </AuthPage>
  );
}
