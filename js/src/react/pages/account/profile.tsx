import { useState, type FormEvent } from "react";
import { ActionRow } from "./action-row.js";
import { Avatar } from "./avatar.js";
import { useSectionKit } from "./kit.js";
import { PictureRow } from "./picture.js";
import type { SectionProps } from "./section.js";

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
