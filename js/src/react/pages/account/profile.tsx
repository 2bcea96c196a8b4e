import { useState, type FormEvent } from "react";
import { ActionRow } from "./action-row";
import { useSectionKit } from "./kit";
import { PictureRow } from "./picture";
import type { SectionProps } from "./section";

/** The initials of a display name ("Ada Lovelace": "AL"), or the first letter of an e-mail address. */
export const initials = (name: string) =>
  (name.includes("@") ? [name] : name.split(/\s+/))
    .filter(Boolean)
    .slice(0, 2)
    .map((part) => part[0]!.toUpperCase())
    .join("");

/** A picture, or the initials of `name` without one; `alt` names it (default: the user's own picture; "" = decorative). */
export function Avatar({ url, name, alt }: { url: string | null; name: string; alt?: string }) {
  const { useMessages } = useSectionKit();
  const m = useMessages();
  const [broken, setBroken] = useState<string | null>(null);
  if (url && broken !== url) {
    return <img className="authmw-avatar" src={url} alt={alt ?? m.profileImageAlt} onError={() => setBroken(url)} data-testid="avatar-image" />;
  }
  return (
    <span className="authmw-avatar" aria-hidden="true" data-testid="avatar-initials">
      {initials(name) || "?"}
    </span>
  );
}

function Profile({ user }: SectionProps) {
  const { useAuth, useMessages, Field, FormError, formValue, Status, SubmitButton, useSubmit } = useSectionKit();
  const auth = useAuth();
  const m = useMessages();
  const submit = useSubmit();
  const [saved, setSaved] = useState(false);
  async function onSubmit(event: FormEvent<HTMLFormElement>, close: () => void) {
    event.preventDefault();
    setSaved(false);
    const form = event.currentTarget;
    if (!submit.validate(form)) return;
    const displayName = formValue(form, "displayName").trim();
    const profileImageUrl = formValue(form, "profileImageUrl").trim();
    const outcome = await submit.run(() =>
      auth.updateUser({ displayName: displayName || null, profileImageUrl: profileImageUrl || null }),
    );
    if (outcome.ok) {
      setSaved(true);
      close();
    }
  }
  return (
    <div className="authmw-profile">
      <Avatar url={user.profileImageUrl} name={user.displayName ?? user.primaryEmail ?? ""} />
      <ActionRow title={m.profileDetails} summary={user.displayName ?? m.noName} action={m.change} testId="profile">
        {(cancel, close) => (
          <form onSubmit={(event) => onSubmit(event, close)} className="authmw-form" noValidate aria-busy={submit.pending} data-testid="profile-form">
            <Field
              label={m.displayName}
              name="displayName"
              type="text"
              autoComplete="name"
              required={false}
              defaultValue={user.displayName ?? ""}
              submit={submit}
            />
            <Field
              label={m.profileImageUrl}
              name="profileImageUrl"
              type="url"
              inputMode="url"
              autoComplete="photo"
              required={false}
              hint={m.profileImageUrlHint}
              defaultValue={user.profileImageUrl ?? ""}
              submit={submit}
            />
            <FormError id={submit.formErrorId} message={submit.error} />
            <div className="authmw-actions">
              <SubmitButton pending={submit.pending} label={m.save} pendingLabel={m.saving} />
              {cancel}
            </div>
          </form>
        )}
      </ActionRow>
      <Status message={saved ? m.saved : null} testId="profile-done" />
      <PictureRow
        title={m.yourPicture}
        current={user.profileImageUrl}
        testId="profile-picture"
        save={(url) => auth.updateUser({ profileImageUrl: url })}
      />
    </div>
  );
}

export default Profile;
