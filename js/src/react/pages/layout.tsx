import { useEffect, useId, type ReactNode } from "react";
import { useSearchParams } from "react-router";
import { RETURN_TO_PARAM, trustedReturnTo } from "../../urls";

export function AuthPage({ title, children }: { title: string; children: ReactNode }) {
  return (
    <main className="authmw-page" style={{ maxWidth: "24rem", margin: "2rem auto", padding: "0 1rem" }}>
      <h1>{title}</h1>
      {children}
    </main>
  );
}

export function Field(props: { label: string; name: string; type: string; autoComplete: string; errorId?: string }) {
  const id = useId();
  return (
    <div className="authmw-field" style={{ display: "grid", gap: "0.25rem" }}>
      <label htmlFor={id}>{props.label}</label>
      <input
        id={id}
        name={props.name}
        type={props.type}
        autoComplete={props.autoComplete}
        required
        aria-invalid={props.errorId ? true : undefined}
        aria-describedby={props.errorId}
      />
    </div>
  );
}

export function FormError({ id, message }: { id?: string; message: string | null }) {
  if (!message) return null;
  return (
    <p id={id} role="alert" className="authmw-error" data-testid="auth-error">
      {message}
    </p>
  );
}

export const formStyle = { display: "grid", gap: "0.75rem" } as const;

/** The page's after_auth_return_to when it is a trusted (relative) URL; untrusted ones are ignored. */
export function useReturnTo(): string | null {
  const [params] = useSearchParams();
  const raw = params.get(RETURN_TO_PARAM);
  const trusted = trustedReturnTo(raw);
  const ignored = raw && !trusted ? raw : null;
  useEffect(() => {
    if (ignored) console.warn(`Ignoring ${RETURN_TO_PARAM}=${ignored}: redirect URLs must be relative.`);
  }, [ignored]);
  return trusted;
}
