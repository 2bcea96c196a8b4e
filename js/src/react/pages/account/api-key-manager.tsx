import { useCallback, useEffect, useId, useRef, useState, type FormEvent } from "react";
import type { NewProjectApiKey, ProjectApiKey, ProjectApiKeyCreate } from "../../../project-api-keys.js";
import { ActionRow } from "./action-row.js";
import { useSectionKit } from "./kit.js";
import { formatDate } from "./format.js";

/** The calls of one owner's keys (the user's own, or a team's). */
export interface KeyCalls {
  list(): Promise<ProjectApiKey[] | null>;
  create(data: ProjectApiKeyCreate): Promise<NewProjectApiKey>;
  revoke(keyId: string): Promise<ProjectApiKey>;
}

/** Whether a key works at `now`: "expired", "revoked", or null while it does. */
export function whyInvalid(key: ProjectApiKey, now = new Date()): "expired" | "revoked" | null {
  if (key.revokedAt) return "revoked";
  if (key.expiresAt && key.expiresAt.getTime() <= now.getTime()) return "expired";
  return null;
}

const EXPIRY_DAYS = [30, 90, 365] as const;
const DAY_MS = 86_400_000;

/**
 * A list of API keys with a form that makes one: the new key's value is shown once, with a copy
 * button; any working key can be revoked after a confirmation. `testId` tells the user's keys
 * from a team's on one page.
 */
export function ApiKeyManager({ calls, testId }: { calls: KeyCalls; testId: string }) {
  const { useMessages, useSubmit, Field, FormError, Status, SubmitButton, formValue } = useSectionKit();
  const m = useMessages();
  const [keys, setKeys] = useState<ProjectApiKey[] | "error" | null>(null);
  const [created, setCreated] = useState<NewProjectApiKey | null>(null);
  const [confirming, setConfirming] = useState<ProjectApiKey | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [copied, setCopied] = useState(false);
  const add = useSubmit();
  const action = useSubmit();
  const expiryId = useId();
  const createdRef = useRef<HTMLDivElement>(null);

  const load = useCallback(async () => {
    try {
      setKeys((await calls.list()) ?? []);
    } catch {
      setKeys("error");
    }
  }, [calls]);
  useEffect(() => void load(), [load]);
  useEffect(() => {
    if (created) createdRef.current?.focus();
  }, [created]);

  async function onCreate(event: FormEvent<HTMLFormElement>, close: () => void) {
    event.preventDefault();
    const form = event.currentTarget;
    if (!add.validate(form)) return;
    const days = Number(formValue(form, "expiry"));
    const outcome = await add.run(() =>
      calls.create({ description: formValue(form, "description").trim(), expiresAt: days ? new Date(Date.now() + days * DAY_MS) : null }),
    );
    if (!outcome.ok) return;
    close();
    setNotice(null);
    setCopied(false);
    setCreated(outcome.value);
    await load();
  }

  async function revoke(key: ProjectApiKey) {
    setNotice(null);
    const outcome = await action.run(() => calls.revoke(key.id));
    setConfirming(null);
    await load();
    if (outcome.ok) setNotice(m.apiKeyRevoked);
  }

  const row = (key: ProjectApiKey) => {
    const invalid = whyInvalid(key);
    return (
      <li key={key.id} className="authmw-row" data-testid={`${testId}-key`} data-key-id={key.id} data-state={invalid ?? "active"}>
        <span className="authmw-row-main authmw-row-stack">
          <span>
            <strong className="authmw-row-title">{key.description}</strong>{" "}
            {invalid && <span className="authmw-badge">{invalid === "revoked" ? m.apiKeyRevokedBadge : m.apiKeyExpiredBadge}</span>}
          </span>
          <span className="authmw-hint">
            {m.apiKeyEndsWith(key.lastFour)} · {m.apiKeyCreatedOn(formatDate(key.createdAt, m.lang || undefined))} ·{" "}
            {key.expiresAt ? m.apiKeyExpiresOn(formatDate(key.expiresAt, m.lang || undefined)) : m.apiKeyNoExpiry}
          </span>
        </span>
        {!invalid && (
          <span className="authmw-row-actions">
            <button
              type="button"
              className="authmw-small"
              disabled={action.pending}
              aria-label={m.revokeApiKeyLabel(key.description)}
              onClick={() => setConfirming(key)}
              data-testid={`${testId}-revoke`}
            >
              {m.revokeApiKey}
            </button>
          </span>
        )}
      </li>
    );
  };

  return (
    <div className="authmw-stack" data-testid={testId}>
      {keys === null && (
        <p role="status" className="authmw-hint">
          {m.loading}
        </p>
      )}
      {keys === "error" && (
        <p role="alert" className="authmw-error">
          {m.couldNotLoadApiKeys}
        </p>
      )}
      {Array.isArray(keys) && (keys.length ? <ul className="authmw-list">{keys.map(row)}</ul> : <p className="authmw-hint">{m.noApiKeys}</p>)}
      {confirming && (
        <div
          className="authmw-confirm"
          role="group"
          aria-label={m.revokeApiKeyLabel(confirming.description)}
          onKeyDown={(event) => {
            if (event.key === "Escape" && !action.pending) setConfirming(null);
          }}
        >
          <p className="authmw-hint">{m.confirmRevokeApiKey(confirming.description)}</p>
          <div className="authmw-actions">
            <button
              type="button"
              className="authmw-danger"
              autoFocus
              disabled={action.pending}
              onClick={() => void revoke(confirming)}
              data-testid={`${testId}-revoke-confirm`}
            >
              {m.revokeApiKey}
            </button>
            <button type="button" disabled={action.pending} onClick={() => setConfirming(null)}>
              {m.cancel}
            </button>
          </div>
        </div>
      )}
      <FormError message={action.error} />
      <Status message={notice} testId={`${testId}-status`} />
      {created && (
        <div className="authmw-notice authmw-created" role="group" aria-label={m.apiKeyCreatedTitle} tabIndex={-1} ref={createdRef} data-testid={`${testId}-created`}>
          <p>
            <strong>{m.apiKeyCreatedTitle}</strong>
          </p>
          <p className="authmw-hint">{m.apiKeyCreatedHint}</p>
          <code className="authmw-secret" data-testid={`${testId}-value`}>
            {created.value}
          </code>
          <div className="authmw-actions">
            <button
              type="button"
              className="authmw-small"
              onClick={() => {
                void navigator.clipboard?.writeText(created.value).then(() => setCopied(true), () => setCopied(false));
              }}
            >
              {m.copyApiKey}
            </button>
            <button type="button" className="authmw-small" onClick={() => setCreated(null)} data-testid={`${testId}-created-done`}>
              {m.apiKeyDone}
            </button>
          </div>
          <Status message={copied ? m.apiKeyCopied : null} />
        </div>
      )}
      <ActionRow title={m.newApiKey} action={m.create} testId={`${testId}-new`}>
        {(cancel, close) => (
          <form onSubmit={(event) => onCreate(event, close)} className="authmw-form" noValidate aria-busy={add.pending} data-testid={`${testId}-form`}>
            <Field
              label={m.apiKeyDescription}
              name="description"
              type="text"
              autoComplete="off"
              hint={m.apiKeyDescriptionHint}
              maxLength={200}
              submit={add}
            />
            <div className="authmw-field">
              <label htmlFor={expiryId}>{m.apiKeyExpiry}</label>
              <select id={expiryId} name="expiry" defaultValue="90">
                {EXPIRY_DAYS.map((days) => (
                  <option key={days} value={days}>
                    {m.apiKeyExpiresInDays(days)}
                  </option>
                ))}
                <option value="0">{m.apiKeyNeverExpires}</option>
              </select>
            </div>
            <FormError id={add.formErrorId} message={add.error} />
            <div className="authmw-actions">
              <SubmitButton pending={add.pending} label={m.createApiKey} pendingLabel={m.saving} testId={`${testId}-create`} />
              {cancel}
            </div>
          </form>
        )}
      </ActionRow>
    </div>
  );
}
