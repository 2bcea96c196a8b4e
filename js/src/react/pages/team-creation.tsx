import { useState, type FormEvent } from "react";
import { AuthLink, useHere } from "../auth-link.js";
import type { Team } from "../../models.js";
import { withReturnTo } from "../../return-to.js";
import { useProject } from "../hooks.js";
import { useMessages } from "../messages.js";
import { useAuth } from "../use-auth.js";
import { AuthPage, Field, FormError, formValue, SubmitButton, useSubmit } from "./layout.js";

/**
 * {handler}/team-creation: a new team, which becomes the user's current team. Signed out, the
 * way to sign in (coming back here); in a project without client team creation, says so.
 */
export function TeamCreation() {
  const auth = useAuth();
  const m = useMessages();
  const project = useProject();
  const here = useHere();
  const submit = useSubmit();
  const [created, setCreated] = useState<Team | null>(null);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    if (!submit.validate(form)) return;
    const displayName = formValue(form, "teamName").trim();
    const outcome = await submit.run(async () => {
      const team = await auth.teams.create({ displayName });
      await auth.selectTeam(team.id);
      return team;
    });
    if (outcome.ok) setCreated(outcome.value);
  }

  const loading = auth.status === "loading" || (auth.status === "signed-in" && project.status === "loading");
  const enabled = project.status === "ready" && project.value.config.clientTeamCreationEnabled;
  return (
    <AuthPage title={m.teamCreationTitle} subtitle={m.teamCreationSubtitle} busy={loading ? m.loading : undefined}>
      {auth.status === "signed-out" && (
        <div className="authmw-stack" data-testid="team-creation-sign-in">
          <p>{m.signInToCreateTeam}</p>
          <AuthLink className="authmw-button authmw-primary" to={withReturnTo(auth.urls.signIn, here)}>
            {m.signIn}
          </AuthLink>
        </div>
      )}
      {auth.status === "signed-in" && !loading && !created && !enabled && (
        <p role="alert" className="authmw-error" data-testid="team-creation-disabled">
          {m.teamCreationDisabled}
        </p>
      )}
      {auth.status === "signed-in" && enabled && !created && (
        <form onSubmit={onSubmit} className="authmw-form" noValidate aria-busy={submit.pending} data-testid="team-creation-form">
          <Field label={m.newTeamName} name="teamName" type="text" autoComplete="organization" missingMessage={m.teamNameRequired} submit={submit} autoFocus />
          <FormError id={submit.formErrorId} message={submit.error} />
          <SubmitButton pending={submit.pending} label={m.createTeam} pendingLabel={m.saving} />
        </form>
      )}
      {created && (
        <div className="authmw-stack">
          <p role="status" className="authmw-notice" data-testid="team-created">
            {m.teamCreated(created.displayName)}
          </p>
          <div className="authmw-actions">
            <AuthLink className="authmw-button authmw-primary" to={auth.urls.home}>
              {m.continue}
            </AuthLink>
            <AuthLink className="authmw-button" to={`${auth.urls.accountSettings}/teams`}>
              {m.manageTeams}
            </AuthLink>
          </div>
        </div>
      )}
    </AuthPage>
  );
}
