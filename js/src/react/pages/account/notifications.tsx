import { useCallback, useEffect, useId, useState } from "react";
import { MARKETING_CATEGORY_ID as MARKETING, TRANSACTIONAL_CATEGORY_ID as TRANSACTIONAL } from "../../../account-rules.js";
import type { NotificationPreference } from "../../../notification-preferences.js";
import type { Messages } from "../../messages.js";
import { useSectionKit } from "./kit.js";

/** The page's name of a category (the service's own name only for a category it does not know). */
const categoryLabel = (preference: NotificationPreference, m: Messages) =>
  preference.categoryId === TRANSACTIONAL
    ? m.notificationCategoryTransactional
    : preference.categoryId === MARKETING
      ? m.notificationCategoryMarketing
      : m.notificationCategoryOther(preference.categoryName);

const checkStyle = { display: "flex", alignItems: "flex-start", gap: "0.6rem", fontWeight: 400 } as const;
const boxStyle = { width: "1.1rem", height: "1.1rem", margin: "0.15rem 0 0", flex: "none", accentColor: "var(--authmw-accent)" } as const;

/**
 * The user's e-mail notification preferences (API 2.8): one switch per category; the
 * Transactional category is always on (its switch shown on and disabled, with the reason).
 */
function Notifications() {
  const { useAuth, useMessages, useSubmit, FormError, Status } = useSectionKit();
  const auth = useAuth();
  const m = useMessages();
  const [preferences, setPreferences] = useState<NotificationPreference[] | null | "error">(null);
  const action = useSubmit();
  const [done, setDone] = useState<string | null>(null);

  const load = useCallback(async () => {
    try {
      setPreferences((await auth.notificationPreferences.list()) ?? []);
    } catch {
      setPreferences("error");
    }
  }, [auth.notificationPreferences]);
  useEffect(() => void load(), [load]);

  if (preferences === null) {
    return (
      <p role="status" className="authmw-hint">
        {m.loading}
      </p>
    );
  }
  if (preferences === "error") {
    return (
      <p role="alert" className="authmw-error">
        {m.couldNotLoadNotifications}
      </p>
    );
  }

  async function set(preference: NotificationPreference, enabled: boolean) {
    setDone(null);
    const outcome = await action.run(() => auth.notificationPreferences.set(preference.categoryId, enabled));
    await load();
    const label = categoryLabel(preference, m);
    if (outcome.ok) setDone(enabled ? m.notificationTurnedOn(label) : m.notificationTurnedOff(label));
  }

  return (
    <div className="authmw-stack">
      <p className="authmw-hint">{m.notificationsIntro}</p>
      <ul className="authmw-list" data-testid="notification-preferences">
        {preferences.map((preference) => (
          <PreferenceRow key={preference.categoryId} preference={preference} label={categoryLabel(preference, m)} pending={action.pending} onChange={(on) => void set(preference, on)} />
        ))}
      </ul>
      <FormError message={action.error} />
      <Status message={done} testId="notifications-done" />
    </div>
  );
}

function PreferenceRow({ preference, label, pending, onChange }: { preference: NotificationPreference; label: string; pending: boolean; onChange(on: boolean): void }) {
  const { useMessages } = useSectionKit();
  const m = useMessages();
  const reasonId = useId();
  const locked = !preference.canDisable;
  return (
    <li className="authmw-row" data-testid="notification-category" data-category-id={preference.categoryId}>
      <label style={checkStyle}>
        <input
          type="checkbox"
          role="switch"
          style={boxStyle}
          checked={locked || preference.enabled}
          disabled={locked || pending}
          aria-describedby={locked ? reasonId : undefined}
          onChange={(event) => onChange(event.currentTarget.checked)}
          data-testid="notification-switch"
        />
        <span>
          <span className="authmw-row-title">{label}</span>
          {locked && (
            <span id={reasonId} className="authmw-hint" style={{ display: "block" }}>
              {m.notificationAlwaysOn}
            </span>
          )}
        </span>
      </label>
    </li>
  );
}

export default Notifications;
