import { useMemo, useState, type FormEvent, type ReactNode } from "react";
import type { Team } from "../../../models.js";
import { ApiKeyManager } from "./api-key-manager.js";
import { ActionRow } from "./action-row.js";
import { useSectionKit, type SectionKit } from "./kit.js";
import { formatDate } from "./format.js";
import { Avatar } from "./avatar.js";
import { DeleteTeam, TeamMembers, TeamProfileRows } from "./team-manage.js";
import type { SectionProps } from "./section.js";

function Teams({ user, config }: SectionProps) {
  const { useAuth, useTeams, useMessages, Field, FormError, formValue, Status, useSubmit } = useSectionKit();
  const auth = useAuth();
  const m = useMessages();
  const teams = useTeams();
  const create = useSubmit();
  const action = useSubmit();
  const canCreate = Boolean(config?.clientTeamCreationEnabled);
  const [deleted, setDeleted] = useState<string | null>(null);

  async function onCreate(event: FormEvent<HTMLFormElement>, close: () => void) {
    event.preventDefault();
    const form = event.currentTarget;
    if (!create.validate(form)) return;
    const displayName = formValue(form, "teamName").trim();
    if ((await create.run(() => auth.teams.create({ displayName }))).ok) close();
  }

  return (
    <>
      {teams.status === "loading" && (
        <p role="status" className="authmw-hint">
          {m.loading}
        </p>
      )}
      {teams.status === "error" && (
        <p role="alert" className="authmw-error">
          {m.couldNotLoadTeams}
        </p>
      )}
      {teams.status === "ready" && teams.value.length === 0 && <p className="authmw-hint">{m.noTeams}</p>}
      {teams.status === "ready" && teams.value.length > 0 && (
        <ul className="authmw-list">
          {teams.value.map((team) => (
            <TeamRow
              key={team.id}
              team={team}
              selected={user.selectedTeamId === team.id}
              busy={action.pending}
              onSelect={() => action.run(() => auth.selectTeam(team.id))}
              onLeave={() => action.run(() => auth.teams.leave(team.id))}
              teamKeys={Boolean(config?.allowTeamApiKeys)}
              onDeleted={(name) => setDeleted(m.teamDeleted(name))}
            />
          ))}
        </ul>
      )}
      <FormError message={action.error} />
      <Status message={deleted} testId="team-deleted" />
      {canCreate && (
        <TeamForm
          title={m.createTeamTitle}
          action={m.create}
          testId="create-team"
          submit={create}
          onSubmit={onCreate}
          status={null}
          button={m.createTeam}
          pendingLabel={m.saving}
        >
          <Field label={m.newTeamName} name="teamName" type="text" autoComplete="off" missingMessage={m.teamNameRequired} submit={create} />
        </TeamForm>
      )}
    </>
  );
}

function TeamRow(props: {
  team: Team;
  selected: boolean;
  busy: boolean;
  onSelect(): void;
  onLeave(): void;
  teamKeys: boolean;
  onDeleted(name: string): void;
}) {
  const { useAuth, usePermission, useTeamInvitations, useTeamMemberProfiles, useMessages, Field, FormError, formValue, useSubmit } = useSectionKit();
  const { team } = props;
  const auth = useAuth();
  const m = useMessages();
  const canInvite = usePermission(team.id, "$invite_members");
  const canListInvitations = usePermission(team.id, "$read_members") && canInvite;
  const canRevoke = usePermission(team.id, "$remove_members");
  const canReadMembers = usePermission(team.id, "$read_members");
  const canManageKeys = usePermission(team.id, "$manage_api_keys") && props.teamKeys;
  const canUpdate = usePermission(team.id, "$update_team");
  const canDelete = usePermission(team.id, "$delete_team");
  const invitations = useTeamInvitations(canListInvitations ? team.id : null);
  const members = useTeamMemberProfiles(canReadMembers ? team.id : null);
  const myId = auth.user?.id;
  const mine = members.status === "ready" ? members.value.find((member) => member.userId === myId) : undefined;
  const rename = useSubmit();
  const [renamed, setRenamed] = useState(false);
  const invite = useSubmit();
  const revoke = useSubmit();
  const [sent, setSent] = useState<string | null>(null);

  async function onInvite(event: FormEvent<HTMLFormElement>, close: () => void) {
    event.preventDefault();
    const form = event.currentTarget;
    if (!invite.validate(form)) return;
    const email = formValue(form, "email").trim();
    setSent(null);
    if ((await invite.run(() => auth.teamInvitations.send({ teamId: team.id, email }))).ok) {
      setSent(m.invitationSent(email));
      close();
    }
  }

  async function onRename(event: FormEvent<HTMLFormElement>, close: () => void) {
    event.preventDefault();
    const form = event.currentTarget;
    if (!rename.validate(form)) return;
    const displayName = formValue(form, "memberName").trim();
    setRenamed(false);
    if ((await rename.run(() => auth.teamMemberProfiles.update(team.id, { displayName }))).ok) {
      setRenamed(true);
      close();
    }
  }

  const name = team.displayName || m.unnamedTeam;
  return (
    <li className="authmw-team" data-testid="team" data-team-id={team.id} data-team-name={team.displayName}>
      <div className="authmw-row">
        <span className="authmw-row-main authmw-member-main">
          <Avatar url={team.profileImageUrl} name={name} alt={team.profileImageUrl ? m.teamPictureAlt(name) : ""} />
          <strong className="authmw-row-title">{name}</strong>
          {props.selected && <span className="authmw-badge authmw-badge-ok">{m.selected}</span>}
        </span>
        <span className="authmw-row-actions">
          {!props.selected && (
            <button type="button" className="authmw-small" disabled={props.busy} onClick={props.onSelect}>
              {m.select}
            </button>
          )}
          <button type="button" className="authmw-small" disabled={props.busy} onClick={props.onLeave} aria-label={m.leaveTeam(name)}>
            {m.leave}
          </button>
        </span>
      </div>
      {members.status === "ready" && (
        <p className="authmw-hint" data-testid="team-members">
          {m.teamMembers(
            members.value.length,
            new Intl.NumberFormat(m.lang || undefined).format(members.value.length),
            new Intl.ListFormat(m.lang || undefined, { type: "conjunction" }).format(
              members.value.map((member) =>
                member.userId === myId ? (member.displayName ? `${member.displayName} (${m.you})` : m.you) : (member.displayName ?? m.noName),
              ),
            ),
          )}
        </p>
      )}
      {canUpdate && <TeamProfileRows team={team} name={name} />}
      {mine && (
        <TeamForm
          title={m.yourNameInTeam(name)}
          summary={mine.displayName ?? m.noName}
          action={m.change}
          testId="member-name"
          submit={rename}
          onSubmit={onRename}
          status={renamed ? m.saved : null}
          button={m.saveName}
          pendingLabel={m.saving}
        >
          <Field label={m.displayName} name="memberName" type="text" autoComplete="nickname" defaultValue={mine.displayName ?? ""} submit={rename} />
        </TeamForm>
      )}
      {canInvite && (
        <TeamForm
          title={m.inviteToTeam(name)}
          action={m.invite}
          testId="invite"
          submit={invite}
          onSubmit={onInvite}
          status={sent}
          button={m.sendInvitation}
          pendingLabel={m.sending}
        >
          <Field label={m.email} name="email" type="email" autoComplete="off" submit={invite} />
        </TeamForm>
      )}
      {invitations.status === "ready" && invitations.value.length > 0 && (
        <div data-testid="pending-invitations">
          <h3>{m.pendingInvitations}</h3>
          <ul className="authmw-list">
            {invitations.value.map((invitation) => (
              <li key={invitation.id} className="authmw-row" data-testid="pending-invitation" data-email={invitation.recipientEmail}>
                <span className="authmw-row-main">
                  {m.invitationUntil(invitation.recipientEmail, formatDate(invitation.expiresAt, m.lang || undefined))}
                </span>
                {canRevoke && (
                  <button
                    type="button"
                    className="authmw-small"
                    disabled={revoke.pending}
                    aria-label={m.revokeInvitation(invitation.recipientEmail)}
                    onClick={() => revoke.run(() => auth.teamInvitations.revoke(team.id, invitation.id))}
                  >
                    {m.revoke}
                  </button>
                )}
              </li>
            ))}
          </ul>
          <FormError message={revoke.error} />
        </div>
      )}
      {canReadMembers && <TeamMembers team={team} name={name} canRemove={Boolean(canRevoke)} />}
      {canManageKeys && <TeamApiKeys teamId={team.id} />}
      {canDelete && <DeleteTeam team={team} name={name} onDeleted={props.onDeleted} />}
    </li>
  );
}

/**
 * A team setting as a row (ActionRow `<testId>-row`) whose form (`<testId>-form`) holds the
 * field (`children`), the form's error, the submit button and Cancel; a success closes it, and
 * `status` (`<testId>-status`) says what happened.
 */
function TeamForm(props: {
  title: string;
  summary?: string;
  action: string;
  testId: string;
  submit: ReturnType<SectionKit["useSubmit"]>;
  onSubmit(event: FormEvent<HTMLFormElement>, close: () => void): void;
  status: string | null;
  button: string;
  pendingLabel: string;
  children: ReactNode;
}) {
  const { FormError, Status, SubmitButton } = useSectionKit();
  const { submit } = props;
  return (
    <>
      <ActionRow title={props.title} summary={props.summary} action={props.action} testId={props.testId}>
        {(cancel, close) => (
          <form
            onSubmit={(event) => props.onSubmit(event, close)}
            className="authmw-form authmw-inline-form"
            noValidate
            aria-busy={submit.pending}
            data-testid={`${props.testId}-form`}
          >
            {props.children}
            <FormError id={submit.formErrorId} message={submit.error} />
            <div className="authmw-actions">
              <SubmitButton pending={submit.pending} label={props.button} pendingLabel={props.pendingLabel} />
              {cancel}
            </div>
          </form>
        )}
      </ActionRow>
      <Status message={props.status} testId={`${props.testId}-status`} />
    </>
  );
}

/** A team's API keys (API 2.8), for a member with `$manage_api_keys`. */
function TeamApiKeys({ teamId }: { teamId: string }) {
  const { useAuth, useMessages } = useSectionKit();
  const auth = useAuth();
  const m = useMessages();
  const keys = auth.teamApiKeys;
  const calls = useMemo(
    () => ({
      list: () => keys.list(teamId),
      create: (data: Parameters<typeof keys.create>[1]) => keys.create(teamId, data),
      revoke: (keyId: string) => keys.revoke(teamId, keyId),
    }),
    [keys, teamId],
  );
  return (
    <div data-testid="team-api-keys-area">
      <h3>{m.teamApiKeysTitle}</h3>
      <p className="authmw-hint" style={{ marginBottom: "0.75rem" }}>
        {m.teamApiKeysIntro}
      </p>
      <ApiKeyManager calls={calls} testId="team-api-keys" />
    </div>
  );
}

export default Teams;
