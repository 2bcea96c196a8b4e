import { useState, type FormEvent } from "react";
import { ActionRow } from "./action-row.js";
import { useSectionKit, type SectionKit } from "./kit.js";
import type { SectionProps } from "./section.js";

/** The field a refusal is about: a wrong current password, or a new one the project refuses. */
function fieldOf(error: unknown, isKnownError: SectionKit["isKnownError"]): "oldPassword" | "newPassword" | null {
  if (isKnownError(error, "PASSWORD_CONFIRMATION_MISMATCH")) return "oldPassword";
  if (isKnownError(error, "PASSWORD_REQUIREMENTS_NOT_MET")) return "newPassword";
  return null;
}

function Password({ user }: SectionProps) {
  const { isKnownError, useAuth, useMessages, Field, FormError, formValue, NewPasswordFields, repeatMismatch, Status, SubmitButton, useSubmit } = useSectionKit();
  const auth = useAuth();
  const m = useMessages();
  const submit = useSubmit();
  const [done, setDone] = useState<string | null>(null);

  async function onSubmit(event: FormEvent<HTMLFormElement>, close: () => void) {
    event.preventDefault();
    const form = event.currentTarget;
    const newPassword = formValue(form, "newPassword");
    setDone(null);
    if (!submit.validate(form, repeatMismatch(form, "newPassword", m))) return;
    const outcome = await submit.run(async () => {
      if (user.hasPassword) await auth.updatePassword({ oldPassword: formValue(form, "oldPassword"), newPassword });
      else await auth.setPassword({ password: newPassword });
    });
    if (outcome.ok) {
      setDone(user.hasPassword ? m.passwordChanged : m.passwordSet);
      close();
      return;
    }
    const field = fieldOf(outcome.error, isKnownError);
    if (field) submit.showOnField(form, field, outcome.error);
  }

  return (
    <>
      <ActionRow
        title={user.hasPassword ? m.passwordIsSet : m.noPasswordYet}
        action={user.hasPassword ? m.change : m.setPassword}
        testId="password"
      >
        {(cancel, close) => (
          <form onSubmit={(event) => onSubmit(event, close)} className="authmw-form" noValidate aria-busy={submit.pending} data-testid="password-form">
            {user.hasPassword && (
              <Field
                label={m.currentPassword}
                name="oldPassword"
                type="password"
                autoComplete="current-password"
                missingMessage={m.currentPasswordRequired}
                submit={submit}
              />
            )}
            <NewPasswordFields name="newPassword" submit={submit} />
            <FormError id={submit.formErrorId} message={submit.error} />
            <div className="authmw-actions">
              <SubmitButton pending={submit.pending} label={user.hasPassword ? m.changePassword : m.setPassword} pendingLabel={m.saving} />
              {cancel}
            </div>
          </form>
        )}
      </ActionRow>
      <Status message={done} testId="password-done" />
    </>
  );
}

export default Password;
