import { useId, useRef, useState, type FormEvent } from "react";
import { Link, useNavigate } from "react-router";
import type { CurrentUser } from "../../models";
import { withReturnTo } from "../../urls";
import { useAuth } from "../hooks";
import { describeError } from "../messages";
import { AuthPage, Field, FormError, formStyle, useReturnTo } from "./layout";

interface CredentialPageProps {
  mode: "sign-in" | "sign-up";
  submit(email: string, password: string, returnTo: string | null): Promise<CurrentUser | null>;
  afterUrl: string;
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
export function CredentialPage({ mode, submit, afterUrl }: CredentialPageProps) {
  const auth = useAuth();
  const navigate = useNavigate();
  const returnTo = useReturnTo();
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
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
      navigate(returnTo ?? afterUrl, { replace: true });
    } catch (err) {
      setError(describeError(err));
      setPending(false);
    }
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

  return (
    <AuthPage title={text.title}>
      <form onSubmit={onSubmit} style={formStyle} aria-busy={pending} data-testid={`${mode}-form`}>
        <Field label="E-mail" name="email" type="email" autoComplete="email" errorId={describedBy} />
        <Field label="Password" name="password" type="password" autoComplete={text.password} errorId={describedBy} />
        <FormError id={errorId} message={error} />
        <button type="submit" disabled={pending}>
          {pending ? text.pending : text.button}
        </button>
      </form>
      <p>
        {text.other.prompt} <Link to={otherUrl}>{text.other.link}</Link>
      </p>
    </AuthPage>
  );
}
