import { useCallback, useEffect, useState } from "react";
import type { UserSession } from "../../../sessions.js";
import { useSectionKit } from "./kit.js";
import { formatDateTime, formatPlace } from "./format.js";

/**
 * The user's sessions (API 2.8): where and when each was last used, this browser's marked, an
 * administrator's impersonation flagged; any other can be ended, or all of them at once.
 */
function Sessions() {
  const { useAuth, useMessages, FormError, Status, useSubmit } = useSectionKit();
  const auth = useAuth();
  const m = useMessages();
  const [sessions, setSessions] = useState<UserSession[] | null | "error">(null);
  const action = useSubmit();
  const [done, setDone] = useState<string | null>(null);

  const load = useCallback(async () => {
    try {
      setSessions((await auth.sessions.list()) ?? []);
    } catch {
      setSessions("error");
    }
  }, [auth.sessions]);
  useEffect(() => void load(), [load]);

  if (sessions === null) {
    return (
      <p role="status" className="authmw-hint">
        {m.loading}
      </p>
    );
  }
  if (sessions === "error") {
    return (
      <p role="alert" className="authmw-error">
        {m.couldNotLoadSessions}
      </p>
    );
  }
  const others = sessions.filter((session) => !session.isCurrent);

  async function revoke(ids: string[], message: string) {
    setDone(null);
    const outcome = await action.run(async () => {
      for (const id of ids) await auth.sessions.revoke(id);
    });
    await load();
    if (outcome.ok) setDone(message);
  }

  return (
    <div className="authmw-stack">
      <p className="authmw-hint">{m.sessionsIntro}</p>
      <ul className="authmw-list" data-testid="sessions">
        {sessions.map((session) => {
          const place = formatPlace(session.location);
          return (
            <li key={session.id} className="authmw-row" data-testid="session" data-current={session.isCurrent} data-session-id={session.id}>
              <span className="authmw-row-main authmw-row-stack">
                <span>
                  <strong className="authmw-row-title">{session.isCurrent ? m.thisSession : place ?? m.otherSession}</strong>{" "}
                  {session.isCurrent && <span className="authmw-badge authmw-badge-ok">{m.currentBadge}</span>}{" "}
                  {session.isImpersonation && <span className="authmw-badge">{m.impersonationBadge}</span>}
                </span>
                <span className="authmw-hint">
                  {session.isCurrent && place ? `${place} · ` : ""}
                  {session.location?.ip ? `${session.location.ip} · ` : ""}
                  {m.lastUsed(formatDateTime(session.lastUsedAt, m.lang || undefined))}
                </span>
              </span>
              {!session.isCurrent && (
                <span className="authmw-row-actions">
                  <button
                    type="button"
                    className="authmw-small"
                    disabled={action.pending}
                    onClick={() => void revoke([session.id], m.sessionRevoked)}
                    aria-label={m.revokeSessionLabel(formatDateTime(session.lastUsedAt, m.lang || undefined))}
                    data-testid="revoke-session"
                  >
                    {m.revokeSession}
                  </button>
                </span>
              )}
            </li>
          );
        })}
      </ul>
      <FormError message={action.error} />
      <Status message={done} testId="sessions-done" />
      {others.length > 1 && (
        <div className="authmw-actions">
          <button
            type="button"
            className="authmw-button authmw-danger"
            disabled={action.pending}
            onClick={() => void revoke(others.map((session) => session.id), m.otherSessionsRevoked)}
            data-testid="revoke-other-sessions"
          >
            {m.revokeOtherSessions}
          </button>
        </div>
      )}
    </div>
  );
}

export default Sessions;
