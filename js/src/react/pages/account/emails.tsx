import { useState, type FormEvent } from "react";
import type { ContactChannel } from "../../../models.js";
import { ActionRow } from "./action-row.js";
import { useSectionKit } from "./kit.js";

const rowMainStyle = { flex: "1 1 12rem" } as const;

function Emails() {
  const { useAuth, useContactChannels, useMessages, EmailField, FormError, formValue, Status, SubmitButton, useSubmit } = useSectionKit();
  const auth = useAuth();
  const m = useMessages();
  const channels = useContactChannels();
  const add = useSubmit();
  const action = useSubmit();
  const [notice, setNotice] = useState<string | null>(null);

  async function onAdd(event: FormEvent<HTMLFormElement>, close: () => void) {
    event.preventDefault();
    const form = event.currentTarget;
    if (!add.validate(form)) return;
    const value = formValue(form, "email").trim();
    const outcome = await add.run(() => auth.contactChannels.create({ value, usedForAuth: false }));
    if (outcome.ok) {
      setNotice(m.addedEmail(value));
      close();
    }
  }

  const run = async (message: string, fn: () => Promise<unknown>) => {
    setNotice(null);
    if ((await action.run(fn)).ok) setNotice(message);
  };

  const row = (channel: ContactChannel) => (
    <li key={channel.id} className="authmw-row" data-testid="contact-channel" data-value={channel.value}>
      {/* A long address wraps its badges before the actions leave its line. */}
      <span className="authmw-row-main" style={rowMainStyle}>
        <span className="authmw-row-title">{channel.value}</span>
        {channel.isPrimary && <span className="authmw-badge">{m.primary}</span>}
        <span
          className={`authmw-badge${channel.isVerified ? " authmw-badge-ok" : ""}`}
          data-testid="contact-channel-verified"
          data-verified={String(channel.isVerified)}
        >
          {channel.isVerified ? m.verified : m.notVerified}
        </span>
      </span>
      <span className="authmw-row-actions">
        {!channel.isVerified && (
          <button
            type="button"
            className="authmw-small"
            disabled={action.pending}
            onClick={() => run(m.verificationEmailSentTo(channel.value), () => auth.contactChannels.sendVerificationEmail(channel.id))}
          >
            {m.sendVerificationEmail}
          </button>
        )}
        {!channel.isPrimary && channel.isVerified && (
          <button
            type="button"
            className="authmw-small"
            disabled={action.pending}
            onClick={() => run(m.nowPrimary(channel.value), () => auth.contactChannels.update(channel.id, { isPrimary: true }))}
          >
            {m.makePrimary}
          </button>
        )}
        {!channel.isPrimary && (
          <button
            type="button"
            className="authmw-small"
            disabled={action.pending}
            aria-label={m.removeEmail(channel.value)}
            onClick={() => run(m.removedEmail(channel.value), () => auth.contactChannels.delete(channel.id))}
          >
            {m.remove}
          </button>
        )}
      </span>
    </li>
  );

  return (
    <>
      {channels.status === "loading" && (
        <p role="status" className="authmw-hint">
          {m.loading}
        </p>
      )}
      {channels.status === "error" && (
        <p role="alert" className="authmw-error">
          {m.couldNotLoadEmails}
        </p>
      )}
      {channels.status === "ready" && <ul className="authmw-list">{channels.value.map(row)}</ul>}
      <FormError message={action.error} />
      <Status message={notice} testId="emails-status" />
      <ActionRow title={m.addEmailLabel} action={m.add} testId="add-email">
        {(cancel, close) => (
          <form onSubmit={(event) => onAdd(event, close)} className="authmw-form authmw-inline-form" noValidate aria-busy={add.pending} data-testid="add-email-form">
            <EmailField submit={add} />
            <FormError id={add.formErrorId} message={add.error} />
            <div className="authmw-actions">
              <SubmitButton pending={add.pending} label={m.addEmail} pendingLabel={m.saving} />
              {cancel}
            </div>
          </form>
        )}
      </ActionRow>
    </>
  );
}

export default Emails;
