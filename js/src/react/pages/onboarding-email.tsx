import type { FormEvent } from "react";
import type { RestrictedUser } from "../../restricted-session.js";
import type { Messages } from "../messages.js";
import { useSectionKit } from "./account/kit.js";

export interface AddEmailProps {
  /** The address was added and its verification e-mail sent; the user as the service now has them. */
  onAdded(user: RestrictedUser | null, email: string): void;
  /**
   * Given when the user replaces an unverified address rather than adding a first one: the form
   * then has a Cancel button, and its field takes the focus.
   */
  onCancel?: () => void;
}

/**
 * The onboarding page's form for a user without an e-mail address (or replacing a mistyped one),
 * loaded on demand: few users see it. Like an account settings section it imports only React and
 * the kit (./account/kit), so the handler's first load does not grow with it.
 */
export default function AddEmail({ onAdded, onCancel }: AddEmailProps) {
  const { useAuth, useMessages, useSubmit, describeError, isKnownError, EmailField, FormError, formValue, SubmitButton } = useSectionKit();
  const auth = useAuth();
  const m = useMessages();
  // An address the service's stricter check refuses is the field's format problem.
  const add = useSubmit((error: unknown, messages: Messages) =>
    isKnownError(error, "SCHEMA_ERROR") ? messages.emailInvalid : describeError(error, messages),
  );

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    if (!add.validate(form)) return;
    const email = formValue(form, "email").trim();
    const outcome = await add.run(() => auth.restrictedSession.addEmail(email));
    if (outcome.ok) onAdded(outcome.value, email);
    else if (isKnownError(outcome.error, "CONTACT_CHANNEL_ALREADY_USED_FOR_AUTH_BY_SOMEONE_ELSE") || isKnownError(outcome.error, "SCHEMA_ERROR")) {
      add.showOnField(form, "email", outcome.error);
    }
  }

  return (
    <form onSubmit={onSubmit} className="authmw-form" noValidate aria-busy={add.pending} data-testid="onboarding-email-form">
      <EmailField submit={add} autoFocus={!!onCancel} />
      <FormError id={add.formErrorId} message={add.error} />
      {/* Not an actions row, whose buttons keep to one line: a long label (French) wraps here. */}
      <SubmitButton pending={add.pending} label={m.sendVerificationEmail} pendingLabel={m.sending} />
      {onCancel && (
        <button type="button" onClick={onCancel}>
          {m.cancel}
        </button>
      )}
    </form>
  );
}
