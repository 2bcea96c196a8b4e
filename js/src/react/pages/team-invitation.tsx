import { useEffect, useRef, useState } from "react";
import { useSearchParams } from "react-router";
import { AuthLink, useHere } from "../auth-link.js";
import { isKnownError } from "../../known-error.js";
import type { TeamInvitationDetails } from "../../models.js";
import { withReturnTo } from "../../return-to.js";
import { useAuth } from "../use-auth.js";
import { describeCodeError, useMessages, type Messages } from "../messages.js";
import { AuthPage, FormError, useSubmit } from "./layout.js";

type Step =
  | { step: "loading" }
  | { step: "sign-in" }
  | { step: "confirm"; details: TeamInvitationDetails }
  | { step: "joined"; details: TeamInvitationDetails }
  | { step: "ignored" }
  | { step: "failed"; message: string };

const invitationMessage = (error: unknown, m: Messages) => describeCodeError(error, m.invitationLinkNoun, m);

/**
 * {handler}/team-invitation?code=...: signed out, checks the code and sends the user to sign in
 * (coming back here); signed in, shows "Join <team>?" and accepts.
 */
export function TeamInvitation() {
  const auth = useAuth();
  const m = useMessages();
  const [params] = useSearchParams();
  const code = params.get("code");
  const [state, setState] = useState<Step>(code ? { step: "loading" } : { step: "failed", message: m.invitationLinkIncomplete });
  const loadedFor = useRef<string | null>(null);
  const accept = useSubmit(invitationMessage);

  useEffect(() => {
    if (!code || auth.status === "loading") return;
    const key = `${auth.status}:${auth.user?.id ?? ""}:${code}`;
    if (loadedFor.current === key) return;
    loadedFor.current = key;
    setState({ step: "loading" });
    const fail = (error: unknown) => setState({ step: "failed", message: invitationMessage(error, m) });
    if (auth.status === "signed-out") {
      auth.teamInvitations.checkCode(code).then(() => setState({ step: "sign-in" }), fail);
    } else {
      auth.teamInvitations.getDetails(code).then((details) => setState({ step: "confirm", details }), fail);
    }
  }, [auth, code, m]);

  const here = useHere();

  async function join(details: TeamInvitationDetails) {
    const outcome = await accept.run(() => auth.teamInvitations.accept(code!));
    if (outcome.ok) setState({ step: "joined", details });
    else if (isKnownError(outcome.error, "VERIFICATION_ERROR")) setState({ step: "failed", message: invitationMessage(outcome.error, m) });
  }

  return (
    <AuthPage
      title={state.step === "failed" ? m.linkFailedTitle : m.teamInvitationTitle}
      busy={state.step === "loading" ? m.checkingInvitation : undefined}
    >
      {state.step === "sign-in" && (
        <div data-testid="invitation-sign-in" className="authmw-stack">
          <p>{m.invitationSignIn}</p>
          <div className="authmw-actions">
            <AuthLink className="authmw-button authmw-primary" to={withReturnTo(auth.urls.signIn, here)} data-testid="invitation-sign-in-link">
              {m.signIn}
            </AuthLink>
            <AuthLink className="authmw-button" to={withReturnTo(auth.urls.signUp, here)}>
              {m.createAccountLink}
            </AuthLink>
          </div>
        </div>
      )}
      {state.step === "confirm" && (
        <div data-testid="invitation-confirm" className="authmw-stack">
          <p>{m.invitedToTeam}</p>
          <p className="authmw-team-name">
            <strong data-testid="invitation-team">{state.details.teamDisplayName}</strong>
          </p>
          <FormError id={accept.formErrorId} message={accept.error} />
          <div className="authmw-actions">
            <button
              type="button"
              className="authmw-primary"
              disabled={accept.pending}
              onClick={() => join(state.details)}
              data-testid="invitation-accept"
            >
              {accept.pending ? m.joining : m.join}
            </button>
            <button type="button" disabled={accept.pending} onClick={() => setState({ step: "ignored" })}>
              {m.ignore}
            </button>
          </div>
        </div>
      )}
      {state.step === "joined" && (
        <p role="status" className="authmw-notice" data-testid="invitation-joined">
          {m.joinedTeam(state.details.teamDisplayName)}
        </p>
      )}
      {state.step === "ignored" && <p role="status">{m.invitationIgnored}</p>}
      {state.step === "failed" && (
        <p role="alert" className="authmw-error" data-testid="auth-error">
          {state.message}
        </p>
      )}
      {state.step !== "sign-in" && state.step !== "confirm" && state.step !== "loading" && (
        <div className="authmw-actions">
          <AuthLink className="authmw-button authmw-primary" to={auth.urls.home}>
            {m.continue}
          </AuthLink>
          {state.step === "failed" && auth.status === "signed-out" && (
            <AuthLink className="authmw-button" to={withReturnTo(auth.urls.signIn, here)}>
              {m.signIn}
            </AuthLink>
          )}
        </div>
      )}
    </AuthPage>
  );
}
