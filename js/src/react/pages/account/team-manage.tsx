// The parts of a team in account settings that change it, each shown only to a member holding
// the permission the service asks for: its name and picture ($update_team), its members
// ($read_members; removing one: $remove_members) and deleting it ($delete_team).
import { useState, type FormEvent } from "react";
import type { Team, TeamMemberProfile } from "../../../models.js";
import { ActionRow } from "./action-row.js";
import { useFocusSwap } from "./focus-swap.js";
import { useSectionKit } from "./kit.js";
import { PictureRow } from "./picture.js";
import { Avatar } from "./avatar.js";

/** The team's name and picture, for a member with $update_team. */
export function TeamProfileRows({ team, name }: { team: Team; name: string }) {
  const { useAuth, useMessages, Field, FormError, formValue, Status, SubmitButton, useSubmit } = useSectionKit();
  const auth = useAuth();
  const m = useMessages();
  const rename = useSubmit();
  const [renamed, setRenamed] = useState(false);

  async function onRename(event: FormEvent<HTMLFormElement>, close: () => void) {
    event.preventDefault();
    const form = event.currentTarget;
    setRenamed(false);
    if (!rename.validate(form)) return;
    const displayName = formValue(form, "teamDisplayName").trim();
    if ((await rename.run(() => auth.teams.update(team.id, { displayName }))).ok) {
      setRenamed(true);
      close();
    }
  }

  return (
    <>
      <ActionRow title={m.teamNameTitle} summary={name} action={m.renameTeam} testId="team-name">
        {(cancel, close) => (
          <form onSubmit={(event) => onRename(event, close)} className="authmw-form authmw-inline-form" noValidate aria-busy={rename.pending} data-testid="team-name-form">
            <Field
              label={m.displayName}
              name="teamDisplayName"
              type="text"
              autoComplete="off"
              defaultValue={team.displayName}
              missingMessage={m.teamNameRequired}
              submit={rename}
            />
            <FormError id={rename.formErrorId} message={rename.error} />
            <div className="authmw-actions">
              <SubmitButton pending={rename.pending} label={m.saveTeamName} pendingLabel={m.saving} />
              {cancel}
            </div>
          </form>
        )}
      </ActionRow>
      <Status message={renamed ? m.saved : null} testId="team-name-status" />
      <PictureRow
        title={m.teamPicture}
        current={team.profileImageUrl}
        testId="team-picture"
        save={(url) => auth.teams.update(team.id, { profileImageUrl: url })}
      />
    </>
  );
}

/**
 * The team's members with their names and pictures, for a member with $read_members; you are
 * marked, with your permissions (the client tier reads no one else's). With $remove_members,
 * each other member can be removed, after a confirmation.
 */
export function TeamMembers({ team, name, canRemove }: { team: Team; name: string; canRemove: boolean }) {
  const { useAuth, useMessages, useTeamMemberProfiles, useTeamPermissions, FormError, Status, useSubmit } = useSectionKit();
  const auth = useAuth();
  const m = useMessages();
  const members = useTeamMemberProfiles(team.id);
  const mine = useTeamPermissions(team.id);
  const remove = useSubmit();
  const [confirming, setConfirming] = useState<string | null>(null);
  const [removed, setRemoved] = useState<string | null>(null);
  const myId = auth.user?.id;
  const nameOf = (member: TeamMemberProfile) => member.displayName ?? m.noName;

  return (
    <details className="authmw-team-part" data-testid="team-member-list">
      <summary>{m.membersOf(name)}</summary>
      {members.status === "loading" && (
        <p role="status" className="authmw-hint">
          {m.loading}
        </p>
      )}
      {members.status === "error" && (
        <p role="alert" className="authmw-error">
          {m.couldNotLoadMembers}
        </p>
      )}
      {members.status === "ready" && (
        <ul className="authmw-list">
          {members.value.map((member) => {
            const me = member.userId === myId;
            return (
              <li key={member.userId} className="authmw-member" data-testid="team-member" data-user-id={member.userId}>
                <div className="authmw-row">
                  <span className="authmw-row-main authmw-member-main">
                    <Avatar url={member.profileImageUrl} name={member.displayName ?? ""} alt="" />
                    <span className="authmw-row-stack">
                      <strong className="authmw-row-title">{nameOf(member)}</strong>
                      {me && (
                        <span className="authmw-hint" data-testid="my-permissions">
                          <span className="authmw-badge">{m.you}</span>{" "}
                          {mine.status === "ready" && mine.value.length > 0 &&
                            `${m.yourPermissions}: ${new Intl.ListFormat(undefined, { type: "conjunction" }).format(
                              mine.value.map((p) => m.permissionName(p.id)),
                            )}`}
                        </span>
                      )}
                    </span>
                  </span>
                  {canRemove && !me && confirming !== member.userId && (
                    <span className="authmw-row-actions">
                      <button
                        type="button"
                        className="authmw-small"
                        aria-label={m.removeMember(nameOf(member))}
                        onClick={() => {
                          setRemoved(null);
                          setConfirming(member.userId);
                        }}
                        data-testid="remove-member"
                      >
                        {m.remove}
                      </button>
                    </span>
                  )}
                </div>
                {confirming === member.userId && (
                  <Confirm
                    question={m.confirmRemoveMember(nameOf(member), name)}
                    confirm={m.removeMemberConfirm}
                    pending={remove.pending}
                    testId="remove-member-confirm"
                    onCancel={() => setConfirming(null)}
                    onConfirm={async () => {
                      if ((await remove.run(() => auth.teams.removeMember(team.id, member.userId))).ok) {
                        setConfirming(null);
                        setRemoved(m.memberRemoved(nameOf(member)));
                      }
                    }}
                  />
                )}
              </li>
            );
          })}
        </ul>
      )}
      <FormError message={remove.error} />
      <Status message={removed} testId="member-removed" />
    </details>
  );
}

/** A question with a dangerous action and Cancel (Escape too); the action gets the focus. */
function Confirm(props: { question: string; confirm: string; pending: boolean; testId: string; onConfirm(): void; onCancel(): void }) {
  const { useMessages } = useSectionKit();
  const m = useMessages();
  const { inside } = useFocusSwap<HTMLButtonElement, HTMLButtonElement>(true);
  return (
    <div
      className="authmw-confirm"
      role="group"
      aria-label={props.question}
      onKeyDown={(event) => {
        if (event.key === "Escape" && !props.pending) {
          event.stopPropagation();
          props.onCancel();
        }
      }}
    >
      <p className="authmw-hint">{props.question}</p>
      <div className="authmw-actions">
        <button ref={inside} type="button" className="authmw-danger" disabled={props.pending} onClick={props.onConfirm} data-testid={props.testId}>
          {props.confirm}
        </button>
        <button type="button" disabled={props.pending} onClick={props.onCancel}>
          {m.cancel}
        </button>
      </div>
    </div>
  );
}

/** Deleting the team, for a member with $delete_team: confirmed by typing the team's name. */
export function DeleteTeam({ team, name, onDeleted }: { team: Team; name: string; onDeleted(name: string): void }) {
  const { useAuth, useMessages, Field, FormError, formValue, useSubmit } = useSectionKit();
  const auth = useAuth();
  const m = useMessages();
  const submit = useSubmit();
  const [open, setOpen] = useState(false);
  const { inside, opener } = useFocusSwap<HTMLFormElement, HTMLButtonElement>(open, (form) => form.querySelector("input"));

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    const typed = formValue(form, "confirmTeamName").trim();
    if (!submit.validate(form, typed && typed !== name.trim() ? { confirmTeamName: m.teamNameMismatch } : {})) return;
    if ((await submit.run(() => auth.teams.delete(team.id))).ok) onDeleted(name);
  }

  return (
    <div className="authmw-team-part" data-testid="delete-team-area">
      <h3>{m.deleteTeamTitle}</h3>
      <p className="authmw-hint">{m.deleteTeamWarning(name)}</p>
      {open ? (
        <form
          ref={inside}
          onSubmit={onSubmit}
          className="authmw-form authmw-inline-form"
          noValidate
          aria-busy={submit.pending}
          data-testid="delete-team-form"
          onKeyDown={(event) => {
            if (event.key === "Escape" && !submit.pending) {
              event.stopPropagation();
              setOpen(false);
            }
          }}
        >
          <Field label={m.typeTeamNameToDelete(name)} name="confirmTeamName" type="text" autoComplete="off" submit={submit} />
          <FormError id={submit.formErrorId} message={submit.error} />
          <div className="authmw-actions">
            <button type="submit" className="authmw-danger" disabled={submit.pending} data-testid="delete-team-confirm">
              {submit.pending ? m.deleting : m.deleteTeamConfirm}
            </button>
            <button type="button" disabled={submit.pending} onClick={() => setOpen(false)}>
              {m.cancel}
            </button>
          </div>
        </form>
      ) : (
        <button ref={opener} type="button" className="authmw-danger-outline" onClick={() => setOpen(true)} data-testid="delete-team">
          {m.deleteTeam}
        </button>
      )}
    </div>
  );
}
