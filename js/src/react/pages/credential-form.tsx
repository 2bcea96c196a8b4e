import { useId, useRef, useState, type FormEvent, type ReactNode } from "react";
import { useAuthRedirect } from "../redirect";
import { Link } from "react-router";
import { MultiFactorAuthenticationRequired } from "../../errors";
import type { CurrentUser } from "../../models";
import { withReturnTo } from "../../urls";
import { useAuth } from "../hooks";
import { describeError } from "../messages";
import { AuthPage, Field, FormError, formStyle, useReturnTo } from "./layout";
import { MfaPrompt } from "./mfa";

interface CredentialPageProps {
  mode: "sign-in" | "sign-up";
  submit(email: string, password: string, returnTo: string | null): Promise<CurrentUser | null>;
  afterUrl: string;
  /** Other ways to sign in (e.g. magic link), offered as tabs next to the password form. */
  alternatives?: { id: string; label: string; content: ReactNode }[];
  /** False when the project has password sign-in off (only the alternatives are shown). */
  passwordEnabled?: boolean;
}

const TEXT = {
  "sign-in": {
    title: "Sign in",
    button: "Sign in",
    pending: "Signing in…",
    password: "current-password",
    other: { prompt: "No account yet?", link: "Create an account" },
  },
  "sign-up": {
    title: "Create an account",
    button: "Sign up",
    pending: "Creating account…",
    password: "new-password",
    other: { prompt: "Already have an account?", link: "Sign in" },
  },
} as const;

/** Shared e-mail + password form of the sign-in and sign-up pages. */
export function CredentialPage({ mode, submit, afterUrl, alternatives = [], passwordEnabled = true }: CredentialPageProps) {
  const auth = useAuth();
  const leave = useAuthRedirect();
  const returnTo = useReturnTo();
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  const [attemptCode, setAttemptCode] = useState<string | null>(null);
  const [tab, setTab] = useState<string>("password");
  const tabsId = useId();
  const finished = useRef(false);
  const errorId = useId();
  const describedBy = error ? errorId : undefined;
  const text = TEXT[mode];
  const otherUrl = withReturnTo(mode === "sign-in" ? auth.urls.signUp : auth.urls.signIn, returnTo);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setPending(true);
    setError(null);
    try {
      await submit(String(form.get("email") ?? ""), String(form.get("password") ?? ""), returnTo);
      finished.current = true;
      leave(returnTo ?? afterUrl);
    } catch (err) {
      if (err instanceof MultiFactorAuthenticationRequired && err.attemptCode) setAttemptCode(err.attemptCode);
      else setError(describeError(err));
      setPending(false);
    }
  }

  if (attemptCode) {
    return (
      <AuthPage title={text.title}>
        <MfaPrompt
          attemptCode={attemptCode}
          onSignedIn={() => {
            finished.current = true;
            leave(returnTo ?? afterUrl);
          }}
        />
      </AuthPage>
    );
  }

  if (auth.user && !pending && !finished.current) {
    return (
      <AuthPage title={text.title}>
        <p>
          You are signed in as <strong>{auth.user.primaryEmail ?? auth.user.displayName ?? auth.user.id}</strong>.
        </p>
        <p>
          <Link to={returnTo ?? afterUrl}>Continue</Link> · <Link to={auth.urls.signOut}>Sign out</Link>
        </p>
      </AuthPage>
    );
  }

  const passwordForm = (
    <form onSubmit={onSubmit} style={formStyle} aria-busy={pending} data-testid={`${mode}-form`}>
      <Field label="E-mail" name="email" type="email" autoComplete="email" errorId={describedBy} />
      <Field label="Password" name="password" type="password" autoComplete={text.password} errorId={describedBy} />
      <FormError id={errorId} message={error} />
      <button type="submit" disabled={pending}>
        {pending ? text.pending : text.button}
      </button>
      {mode === "sign-in" && (
        <Link to={auth.urls.forgotPassword} data-testid="forgot-password-link">
          Forgot your password?
        </Link>
      )}
    </form>
  );
  const panels = [...(passwordEnabled ? [{ id: "password", label: "Password", content: passwordForm }] : []), ...alternatives];
  const current = panels.find((p) => p.id === tab) ?? panels[0];

  return (
    <AuthPage title={text.title}>
      {panels.length > 1 && (
        <div role="tablist" aria-label="How to sign in" style={{ display: "flex", gap: "0.5rem", marginBottom: "1rem" }}>
          {panels.map((panel) => (
            <button
              key={panel.id}
              type="button"
              role="tab"
              id={`${tabsId}-${panel.id}-tab`}
              aria-selected={panel === current}
              aria-controls={`${tabsId}-panel`}
              tabIndex={panel === current ? 0 : -1}
              data-testid={`sign-in-tab-${panel.id}`}
              style={panel === current ? { fontWeight: "bold", borderBottom: "2px solid currentColor" } : undefined}
              onClick={() => setTab(panel.id)}
              onKeyDown={(event) => {
                // Arrow keys move between tabs (WAI-ARIA tabs pattern).
                const step = event.key === "ArrowRight" ? 1 : event.key === "ArrowLeft" ? -1 : 0;
                if (!step) return;
                event.preventDefault();
                const next = panels[(panels.indexOf(panel) + step + panels.length) % panels.length]!;
                setTab(next.id);
                document.getElementById(`${tabsId}-${next.id}-tab`)?.focus();
              }}
            >
              {panel.label}
            </button>
          ))}
        </div>
      )}
      <div
        id={`${tabsId}-panel`}
        role={panels.length > 1 ? "tabpanel" : undefined}
        aria-labelledby={panels.length > 1 && current ? `${tabsId}-${current.id}-tab` : undefined}
      >
        {current?.content}
      </div>
      <p>
        {text.other.prompt} <Link to={otherUrl}>{text.other.link}</Link>
      </p>
    </AuthPage>
  );
}
