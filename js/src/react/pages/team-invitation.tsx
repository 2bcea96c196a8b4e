import { useEffect, useRef, useState } from "react";
import { Link, useLocation, useSearchParams } from "react-router";
import { VerificationCodeError } from "../../errors";
import type { TeamInvitationDetails } from "../../models";
import { withReturnTo } from "../../urls";
import { useAuth } from "../hooks";
import { describeError, verificationCodeMessage } from "../messages";
import { AuthPage, FormError, useSubmit } from "./layout";

type Step =
  | { step: "loading" }
  | { step: "sign-in" }
  | { step: "confirm"; details: TeamInvitationDetails }
  | { step: "joined"; details: TeamInvitationDetails }
  | { step: "ignored" }
  | { step: "failed"; message: string };

const invitationMessage = (error: unknown) =>
  error instanceof VerificationCodeError ? verificationCodeMessage(error, "invitation link") : describeError(error);

/**
 * {handler}/team-invitation?code=...: signed out, checks the code and sends the user to sign in
 * (coming back here); signed in, shows "Join <team>?" and accepts.
 */
export function TeamInvitation() {
  const auth = useAuth();
  const location = useLocation();
  const [params] = useSearchParams();
  const code = params.get("code");
  const [state, setState] = useState<Step>(
    code ? { step: "loading" } : { step: "failed", message: "This invitation link is incomplete (no code)." },
  );
  const loadedFor = useRef<string | null>(null);
  const accept = useSubmit(invitationMessage);

  useEffect(() => {
    if (!code || auth.status === "loading") return;
    const key = `${auth.status}:${auth.user?.id ?? ""}:${code}`;
    if (loadedFor.current === key) return;
    loadedFor.current = key;
    setState({ step: "loading" });
    const fail = (error: unknown) => setState({ step: "failed", message: invitationMessage(error) });
    if (auth.status === "signed-out") {
      auth.teamInvitations.checkCode(code).then(() => setState({ step: "sign-in" }), fail);
    } else {
      auth.teamInvitations.getDetails(code).then((details) => setState({ step: "confirm", details }), fail);
    }
  }, [auth, code]);

  const here = `${location.pathname}${location.search}`;

  async function join(details: TeamInvitationDetails) {
    const outcome = await accept.run(() => auth.teamInvitations.accept(code!));
    if (outcome.ok) setState({ step: "joined", details });
    else if (outcome.error instanceof VerificationCodeError) setState({ step: "failed", message: invitationMessage(outcome.error) });
  }

  return (
    <AuthPage title="Team invitation">
      {state.step === "loading" && <p role="status">Checking your invitation…</p>}
      {state.step === "sign-in" && (
        <div data-testid="invitation-sign-in">
          <p>You have been invited to join a team. Sign in, or create an account, to accept the invitation.</p>
          <p>
            <Link to={withReturnTo(auth.urls.signIn, here)} data-testid="invitation-sign-in-link">
              Sign in
            </Link>{" "}
            · <Link to={withReturnTo(auth.urls.signUp, here)}>Create an account</Link>
          </p>
        </div>
      )}
      {state.step === "confirm" && (
        <div data-testid="invitation-confirm">
          <p>
            Join <strong data-testid="invitation-team">{state.details.teamDisplayName}</strong>?
          </p>
          <FormError id={accept.formErrorId} message={accept.error} />
          <p style={{ display: "flex", gap: "0.5rem" }}>
            <button type="button" disabled={accept.pending} onClick={() => join(state.details)} data-testid="invitation-accept">
              {accept.pending ? "Joining…" : "Join"}
            </button>
            <button type="button" disabled={accept.pending} onClick={() => setState({ step: "ignored" })}>
              Ignore
            </button>
          </p>
        </div>
      )}
      {state.step === "joined" && (
        <p role="status" data-testid="invitation-joined">
          You joined <strong>{state.details.teamDisplayName}</strong>.
        </p>
      )}
      {state.step === "ignored" && <p role="status">You ignored the invitation. You can open the link again later.</p>}
      {state.step === "failed" && (
        <p role="alert" className="authmw-error" data-testid="auth-error">
          {state.message}
        </p>
      )}
      {state.step !== "sign-in" && state.step !== "confirm" && (
        <p>
          <Link to={auth.urls.home}>Continue</Link>
          {state.step === "failed" && auth.status === "signed-out" && (
            <>
              {" "}
              · <Link to={withReturnTo(auth.urls.signIn, here)}>Sign in</Link>
            </>
          )}
        </p>
      )}
    </AuthPage>
  );
}
