import { useState, type FormEvent, type ReactNode } from "react";
import { useAuthRedirect } from "../redirect";
import { Link, useLocation } from "react-router";
import { PasswordConfirmationMismatch } from "../../errors";
import type { ContactChannel, CurrentUser, Team } from "../../models";
import { withReturnTo } from "../../urls";
import {
  useAuth,
  useContactChannels,
  usePermission,
  useProject,
  useTeamInvitations,
  useTeamMemberProfiles,
  useTeams,
} from "../hooks";
import { AuthPage, Field, FormError, formStyle, formValue, Status, useSubmit } from "./layout";

const sectionStyle = { borderTop: "1px solid #ddd", paddingTop: "0.5rem", marginTop: "1.5rem" } as const;
const rowStyle = { display: "flex", flexWrap: "wrap", gap: "0.5rem", alignItems: "center" } as const;

function Section({ id, title, children }: { id: string; title: string; children: ReactNode }) {
  return (
    <section aria-labelledby={`authmw-${id}-heading`} style={sectionStyle} data-testid={`settings-${id}`}>
      <h2 id={`authmw-${id}-heading`}>{title}</h2>
      {children}
    </section>
  );
}

/** {handler}/account-settings: profile, e-mails, password, teams and account deletion. */
export function AccountSettings() {
  const auth = useAuth();
  const location = useLocation();
  if (auth.status === "loading") {
    return (
      <AuthPage title="Account settings">
        <p role="status">Loading…</p>
      </AuthPage>
    );
  }
  if (!auth.user) {
    return (
      <AuthPage title="Account settings">
        <p>Sign in to see your account settings.</p>
        <p>
          <Link to={withReturnTo(auth.urls.signIn, `${location.pathname}${location.search}`)}>Sign in</Link>
        </p>
      </AuthPage>
    );
  }
  return (
    <main className="authmw-page" style={{ maxWidth: "36rem", margin: "2rem auto", padding: "0 1rem" }}>
      <h1>Account settings</h1>
      <ProfileSection user={auth.user} />
      <EmailsSection />
      <PasswordSection user={auth.user} />
      <TeamsSection user={auth.user} />
      <DeleteAccountSection />
    </main>
  );
}

function ProfileSection({ user }: { user: CurrentUser }) {
  const auth = useAuth();
  const submit = useSubmit();
  const [saved, setSaved] = useState(false);
  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setSaved(false);
    const displayName = formValue(event.currentTarget, "displayName").trim();
    if ((await submit.run(() => auth.updateUser({ displayName: displayName || null }))).ok) setSaved(true);
  }
  return (
    <Section id="profile" title="Profile">
      <form onSubmit={onSubmit} style={formStyle} aria-busy={submit.pending} data-testid="profile-form">
        <Field
          label="Display name"
          name="displayName"
          type="text"
          autoComplete="name"
          required={false}
          defaultValue={user.displayName ?? ""}
          errorId={submit.errorId}
        />
        <FormError id={submit.formErrorId} message={submit.error} />
        <Status message={saved ? "Saved." : null} />
        <button type="submit" disabled={submit.pending}>
          Save
        </button>
      </form>
    </Section>
  );
}

function EmailsSection() {
  const auth = useAuth();
  const channels = useContactChannels();
  const add = useSubmit();
  const action = useSubmit();
  const [notice, setNotice] = useState<string | null>(null);

  async function onAdd(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    const value = formValue(form, "email");
    const outcome = await add.run(() => auth.contactChannels.create({ value, usedForAuth: false }));
    if (outcome.ok) {
      form.reset();
      setNotice(`Added ${value}.`);
    }
  }

  const run = async (message: string, fn: () => Promise<unknown>) => {
    setNotice(null);
    if ((await action.run(fn)).ok) setNotice(message);
  };

  const row = (channel: ContactChannel) => (
    <li key={channel.id} style={rowStyle} data-testid="contact-channel" data-value={channel.value}>
      <span>{channel.value}</span>
      {channel.isPrimary && <span className="authmw-badge">primary</span>}
      <span className="authmw-badge" data-testid="contact-channel-verified" data-verified={String(channel.isVerified)}>
        {channel.isVerified ? "verified" : "not verified"}
      </span>
      {!channel.isVerified && (
        <button
          type="button"
          disabled={action.pending}
          onClick={() =>
            run(`We sent a verification e-mail to ${channel.value}.`, () => auth.contactChannels.sendVerificationEmail(channel.id))
          }
        >
          Send verification e-mail
        </button>
      )}
      {!channel.isPrimary && channel.isVerified && (
        <button
          type="button"
          disabled={action.pending}
          onClick={() => run(`${channel.value} is now your primary e-mail.`, () => auth.contactChannels.update(channel.id, { isPrimary: true }))}
        >
          Make primary
        </button>
      )}
      {!channel.isPrimary && (
        <button
          type="button"
          disabled={action.pending}
          aria-label={`Remove ${channel.value}`}
          onClick={() => run(`Removed ${channel.value}.`, () => auth.contactChannels.delete(channel.id))}
        >
          Remove
        </button>
      )}
    </li>
  );

  return (
    <Section id="emails" title="E-mail addresses">
      {channels.status === "loading" && <p role="status">Loading…</p>}
      {channels.status === "error" && (
        <p role="alert" className="authmw-error">
          Could not load your e-mail addresses.
        </p>
      )}
      {channels.status === "ready" && (
        <ul style={{ listStyle: "none", padding: 0, display: "grid", gap: "0.5rem" }}>{channels.value.map(row)}</ul>
      )}
      <FormError message={action.error} />
      <Status message={notice} testId="emails-status" />
      <form onSubmit={onAdd} style={formStyle} aria-busy={add.pending} data-testid="add-email-form">
        <Field label="Add an e-mail address" name="email" type="email" autoComplete="email" errorId={add.errorId} />
        <FormError id={add.formErrorId} message={add.error} />
        <button type="submit" disabled={add.pending}>
          Add e-mail
        </button>
      </form>
    </Section>
  );
}

function PasswordSection({ user }: { user: CurrentUser }) {
  const auth = useAuth();
  const submit = useSubmit();
  const [done, setDone] = useState<string | null>(null);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    const newPassword = formValue(form, "newPassword");
    const repeat = formValue(form, "repeat");
    setDone(null);
    const outcome = await submit.run(async () => {
      if (newPassword !== repeat) throw new PasswordConfirmationMismatch();
      if (user.hasPassword) await auth.updatePassword({ oldPassword: formValue(form, "oldPassword"), newPassword });
      else await auth.setPassword({ password: newPassword });
    });
    if (outcome.ok) {
      form.reset();
      setDone(user.hasPassword ? "Your password has been changed. Your other sessions were signed out." : "Your password is set.");
    }
  }

  return (
    <Section id="password" title="Password">
      {!user.hasPassword && <p>Your account has no password yet. Set one to sign in with your e-mail and password.</p>}
      <form onSubmit={onSubmit} style={formStyle} aria-busy={submit.pending} data-testid="password-form">
        {user.hasPassword && (
          <Field label="Current password" name="oldPassword" type="password" autoComplete="current-password" errorId={submit.errorId} />
        )}
        <Field label="New password" name="newPassword" type="password" autoComplete="new-password" errorId={submit.errorId} />
        <Field label="Repeat new password" name="repeat" type="password" autoComplete="new-password" errorId={submit.errorId} />
        <FormError id={submit.formErrorId} message={submit.error} />
        <Status message={done} />
        <button type="submit" disabled={submit.pending}>
          {user.hasPassword ? "Change password" : "Set password"}
        </button>
      </form>
    </Section>
  );
}

function TeamsSection({ user }: { user: CurrentUser }) {
  const auth = useAuth();
  const teams = useTeams();
  const project = useProject();
  const create = useSubmit();
  const action = useSubmit();
  const canCreate = project.status === "ready" && project.value.config.clientTeamCreationEnabled;

  async function onCreate(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    const displayName = formValue(form, "teamName").trim();
    if ((await create.run(() => auth.teams.create({ displayName }))).ok) form.reset();
  }

  return (
    <Section id="teams" title="Teams">
      {teams.status === "loading" && <p role="status">Loading…</p>}
      {teams.status === "error" && (
        <p role="alert" className="authmw-error">
          Could not load your teams.
        </p>
      )}
      {teams.status === "ready" && teams.value.length === 0 && <p>You are not a member of any team.</p>}
      {teams.status === "ready" && teams.value.length > 0 && (
        <ul style={{ listStyle: "none", padding: 0, display: "grid", gap: "1rem" }}>
          {teams.value.map((team) => (
            <TeamRow
              key={team.id}
              team={team}
              selected={user.selectedTeamId === team.id}
              busy={action.pending}
              onSelect={() => action.run(() => auth.selectTeam(team.id))}
              onLeave={() => action.run(() => auth.teams.leave(team.id))}
            />
          ))}
        </ul>
      )}
      <FormError message={action.error} />
      {canCreate && (
        <form onSubmit={onCreate} style={formStyle} aria-busy={create.pending} data-testid="create-team-form">
          <Field label="New team name" name="teamName" type="text" autoComplete="off" errorId={create.errorId} />
          <FormError id={create.formErrorId} message={create.error} />
          <button type="submit" disabled={create.pending}>
            Create team
          </button>
        </form>
      )}
    </Section>
  );
}

function TeamRow(props: { team: Team; selected: boolean; busy: boolean; onSelect(): void; onLeave(): void }) {
  const { team } = props;
  const auth = useAuth();
  const canInvite = usePermission(team.id, "$invite_members");
  const canListInvitations = usePermission(team.id, "$read_members") && canInvite;
  const canRevoke = usePermission(team.id, "$remove_members");
  const canReadMembers = usePermission(team.id, "$read_members");
  const invitations = useTeamInvitations(canListInvitations ? team.id : null);
  const members = useTeamMemberProfiles(canReadMembers ? team.id : null);
  const myId = auth.user?.id;
  const mine = members.status === "ready" ? members.value.find((m) => m.userId === myId) : undefined;
  const rename = useSubmit();
  const [renamed, setRenamed] = useState(false);
  const invite = useSubmit();
  const revoke = useSubmit();
  const [sent, setSent] = useState<string | null>(null);

  async function onInvite(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    const email = formValue(form, "email");
    setSent(null);
    if ((await invite.run(() => auth.teamInvitations.send({ teamId: team.id, email }))).ok) {
      form.reset();
      setSent(`Invitation sent to ${email}.`);
    }
  }

  async function onRename(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const displayName = formValue(event.currentTarget, "memberName").trim();
    setRenamed(false);
    if ((await rename.run(() => auth.teamMemberProfiles.update(team.id, { displayName }))).ok) setRenamed(true);
  }

  return (
    <li data-testid="team" data-team-id={team.id} data-team-name={team.displayName}>
      <div style={rowStyle}>
        <strong>{team.displayName || "(unnamed team)"}</strong>
        {props.selected ? (
          <span className="authmw-badge">selected</span>
        ) : (
          <button type="button" disabled={props.busy} onClick={props.onSelect}>
            Select
          </button>
        )}
        <button type="button" disabled={props.busy} onClick={props.onLeave} aria-label={`Leave ${team.displayName}`}>
          Leave
        </button>
      </div>
      {members.status === "ready" && (
        <p data-testid="team-members">
          Members:{" "}
          {members.value
            .map((m) => (m.userId === myId ? (m.displayName ? `${m.displayName} (you)` : "you") : (m.displayName ?? "(no name)")))
            .join(", ")}
        </p>
      )}
      {mine && (
        <form onSubmit={onRename} style={{ ...formStyle, marginTop: "0.5rem" }} aria-busy={rename.pending} data-testid="member-name-form">
          <Field
            label={`Your name in ${team.displayName}`}
            name="memberName"
            type="text"
            autoComplete="nickname"
            defaultValue={mine.displayName ?? ""}
            errorId={rename.errorId}
          />
          <FormError id={rename.formErrorId} message={rename.error} />
          <Status message={renamed ? "Saved." : null} />
          <button type="submit" disabled={rename.pending}>
            Save name
          </button>
        </form>
      )}
      {canInvite && (
        <form onSubmit={onInvite} style={{ ...formStyle, marginTop: "0.5rem" }} aria-busy={invite.pending} data-testid="invite-form">
          <Field label={`Invite to ${team.displayName} (e-mail)`} name="email" type="email" autoComplete="off" errorId={invite.errorId} />
          <FormError id={invite.formErrorId} message={invite.error} />
          <Status message={sent} testId="invite-status" />
          <button type="submit" disabled={invite.pending}>
            Send invitation
          </button>
        </form>
      )}
      {invitations.status === "ready" && invitations.value.length > 0 && (
        <div data-testid="pending-invitations">
          <h3 style={{ fontSize: "1rem" }}>Pending invitations</h3>
          <ul>
            {invitations.value.map((invitation) => (
              <li key={invitation.id} style={rowStyle} data-testid="pending-invitation" data-email={invitation.recipientEmail}>
                <span>
                  {invitation.recipientEmail} (until {invitation.expiresAt.toLocaleDateString()})
                </span>
                {canRevoke && (
                  <button
                    type="button"
                    disabled={revoke.pending}
                    aria-label={`Revoke the invitation of ${invitation.recipientEmail}`}
                    onClick={() => revoke.run(() => auth.teamInvitations.revoke(team.id, invitation.id))}
                  >
                    Revoke
                  </button>
                )}
              </li>
            ))}
          </ul>
          <FormError message={revoke.error} />
        </div>
      )}
    </li>
  );
}

function DeleteAccountSection() {
  const auth = useAuth();
  const project = useProject();
  const leave = useAuthRedirect();
  const submit = useSubmit();
  const [confirming, setConfirming] = useState(false);
  if (project.status !== "ready" || !project.value.config.clientUserDeletionEnabled) return null;
  return (
    <Section id="delete" title="Delete account">
      <p>Deleting your account removes it and all its data. This cannot be undone.</p>
      {confirming ? (
        <div style={rowStyle}>
          <button
            type="button"
            disabled={submit.pending}
            data-testid="delete-account-confirm"
            onClick={async () => {
              if ((await submit.run(() => auth.deleteUser())).ok) leave(auth.urls.afterSignOut);
            }}
          >
            Yes, delete my account
          </button>
          <button type="button" onClick={() => setConfirming(false)}>
            Cancel
          </button>
        </div>
      ) : (
        <button type="button" onClick={() => setConfirming(true)} data-testid="delete-account">
          Delete account
        </button>
      )}
      <FormError id={submit.formErrorId} message={submit.error} />
    </Section>
  );
}
