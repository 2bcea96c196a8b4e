// The notice after a password sign-up (issue 41): "Check your inbox: we sent a verification link
// to <address>", with "Send again" and "Dismiss". <VerificationNotice> (verification-notice-slot.tsx)
// loads this module only when the sign-up form left its note (verification-note.ts); the default
// export is what React.lazy takes.
//
// It imports nothing that the package's index re-exports (hooks, useAuth, the components' texts):
// a bundler would put such a module into the provider's first load, because this one is loaded by
// import(). The slot hands it the controller, and the texts are a module of their own.
import { useEffect, useId, useState, useSyncExternalStore, type JSX } from "react";
import type { AuthController } from "../../controller.js";
import type { ColorScheme } from "../handler-options.js";
import { DARK, LIGHT, revertHost, ROOT_RESET, scopeRules } from "../palette.js";
import { clearNote, readNote } from "../verification-note.js";
import { NOTICE_TEXTS, type NoticeTexts } from "./notice-texts.js";

/**
 * A card fixed at the bottom of the window (across it on a phone), above the page but leaving
 * it usable: the page behind stays live and nothing takes the focus. Its colours are the
 * components' variables, so an app's theme of `.authmw-ui` reaches it.
 */
const NOTICE_STYLES = scopeRules(`
.authmw-ui.authmw-verification-notice {${LIGHT} ${ROOT_RESET}
  --authmw-radius: 8px; --authmw-font: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", sans-serif;
  position: fixed; z-index: 60; right: 1rem; bottom: 1rem; display: grid; gap: 0.5rem;
  width: min(24rem, calc(100vw - 2rem)); box-sizing: border-box; padding: 0.875rem 1rem;
  font-family: var(--authmw-font); font-size: 0.9375rem; line-height: 1.4; color: var(--authmw-text);
  background: var(--authmw-surface); border: 1px solid var(--authmw-border); border-radius: calc(var(--authmw-radius) * 1.5);
  box-shadow: var(--authmw-shadow);
}
@media (prefers-color-scheme: dark) {
  .authmw-ui.authmw-verification-notice:not([data-color-scheme=light]) {${DARK}
  }
}
.authmw-ui.authmw-verification-notice[data-color-scheme=dark] {${DARK}
}
@media (max-width: 30rem) {
  .authmw-ui.authmw-verification-notice { right: 0.5rem; bottom: 0.5rem; width: calc(100vw - 1rem); }
}
${revertHost("authmw-verification-notice")}
:where(.authmw-verification-notice *) { box-sizing: border-box; }
:where(.authmw-verification-notice :focus-visible) { outline: 2px solid var(--authmw-accent); outline-offset: 2px; }
:where(.authmw-verification-notice h2) { margin: 0; font-size: 1rem; font-weight: 650; line-height: 1.3; }
:where(.authmw-verification-notice p) { margin: 0; overflow-wrap: anywhere; }
:where(.authmw-verification-notice .authmw-notice-status) { color: var(--authmw-muted); }
:where(.authmw-verification-notice .authmw-notice-error) { color: var(--authmw-error); font-size: 0.875rem; font-weight: 500; }
:where(.authmw-verification-notice .authmw-notice-actions) { display: flex; flex-wrap: wrap; gap: 0.5rem; margin-top: 0.25rem; }
:where(.authmw-verification-notice button) {
  display: inline-flex; align-items: center; justify-content: center; min-height: 2.5rem; padding: 0.4rem 0.875rem;
  font: inherit; font-size: 0.875rem; font-weight: 600; line-height: 1.2; cursor: pointer;
  border: 1px solid var(--authmw-input-border); border-radius: var(--authmw-radius); background: var(--authmw-surface); color: var(--authmw-text);
}
:where(.authmw-verification-notice button:hover) { background: var(--authmw-surface-muted); }
:where(.authmw-verification-notice button:disabled) { opacity: 0.65; cursor: progress; }
:where(.authmw-verification-notice .authmw-notice-primary) { background: var(--authmw-accent); border-color: var(--authmw-accent); color: var(--authmw-accent-text); }
:where(.authmw-verification-notice .authmw-notice-primary:hover) { background: color-mix(in srgb, var(--authmw-accent) 86%, var(--authmw-text)); }
`, "authmw-verification-notice");

interface NoticeCardProps {
  controller: AuthController;
  texts?: Partial<NoticeTexts>;
  colorScheme?: ColorScheme;
}

/** The card shown: the first one mounted (an app may render several slots, two UserButtons say). */
let holder: object | null = null;

type Sending = "idle" | "sending" | "sent" | "failed";

/**
 * Shown while the signed-in user is the one who signed up in this tab and their address is not
 * verified yet; gone for good (the note removed) once dismissed, verified, or another user (or
 * nobody) is signed in.
 */
export default function NoticeCard({ controller, texts, colorScheme }: NoticeCardProps): JSX.Element | null {
  const state = useSyncExternalStore(controller.subscribe, controller.getUserState);
  const [me] = useState(() => ({}));
  const [holding, setHolding] = useState(false);
  useEffect(() => {
    if (holder !== null) return;
    holder = me;
    setHolding(true);
    return () => {
      holder = null;
    };
  }, [me]);
  const t = { ...NOTICE_TEXTS, ...texts };
  const titleId = useId();
  const [note] = useState(readNote);
  const [sending, setSending] = useState<Sending>("idle");
  const user = state.user;
  const current = note !== null && user !== null && user.id === note.user && user.primaryEmail === note.email && !user.primaryEmailVerified;
  const over = note === null || state.status === "signed-out" || (user !== null && !current);
  useEffect(() => {
    if (over) clearNote();
  }, [over]);
  if (!current || !holding) return null;

  async function sendAgain() {
    setSending("sending");
    try {
      await controller.sendVerificationEmail();
      setSending("sent");
    } catch {
      setSending("failed");
    }
  }

  return (
    <section
      className="authmw-ui authmw-verification-notice"
      data-color-scheme={colorScheme && colorScheme !== "system" ? colorScheme : undefined}
      aria-labelledby={titleId}
      data-testid="verification-notice"
    >
      <style href="authmw-verification-notice" precedence="low">
        {NOTICE_STYLES}
      </style>
      <h2 id={titleId}>{t.verificationSentTitle}</h2>
      <p role="status" data-testid="verification-notice-text">
        {t.verificationSent(note.email)}
        {sending === "sent" && <span className="authmw-notice-status"> {t.sentAgain}</span>}
      </p>
      {sending === "failed" && (
        <p role="alert" className="authmw-notice-error">
          {t.notSent}
        </p>
      )}
      <div className="authmw-notice-actions">
        <button
          type="button"
          className="authmw-notice-primary"
          disabled={sending === "sending"}
          onClick={() => void sendAgain()}
          data-testid="verification-notice-send-again"
        >
          {sending === "sending" ? t.sending : t.sendAgain}
        </button>
        <button type="button" onClick={clearNote} data-testid="verification-notice-dismiss">
          {t.dismiss}
        </button>
      </div>
    </section>
  );
}
