import { useCallback, useEffect, useId, useRef, useState, type ReactNode } from "react";
import { useSearchParams } from "react-router";
import { RETURN_TO_PARAM, trustedReturnTo } from "../../urls";
import { describeError } from "../messages";

export function AuthPage({ title, children }: { title: string; children: ReactNode }) {
  return (
    <main className="authmw-page" style={{ maxWidth: "24rem", margin: "2rem auto", padding: "0 1rem" }}>
      <h1>{title}</h1>
      {children}
    </main>
  );
}

export interface FieldProps {
  label: string;
  name: string;
  type: string;
  autoComplete: string;
  /** Id of the error message that describes this field (marks it invalid). */
  errorId?: string;
  /** Id of a hint shown under the field. */
  hint?: string;
  required?: boolean;
  defaultValue?: string;
  inputMode?: "text" | "numeric" | "email";
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  testId?: string;
}

export function Field(props: FieldProps) {
  const id = useId();
  const hintId = `${id}-hint`;
  const describedBy = [props.errorId, props.hint ? hintId : undefined].filter(Boolean).join(" ") || undefined;
  return (
    <div className="authmw-field" style={{ display: "grid", gap: "0.25rem" }}>
      <label htmlFor={id}>{props.label}</label>
      <input
        id={id}
        name={props.name}
        type={props.type}
        autoComplete={props.autoComplete}
        required={props.required ?? true}
        defaultValue={props.defaultValue}
        inputMode={props.inputMode}
        pattern={props.pattern}
        minLength={props.minLength}
        maxLength={props.maxLength}
        data-testid={props.testId}
        aria-invalid={props.errorId ? true : undefined}
        aria-describedby={describedBy}
      />
      {props.hint && (
        <small id={hintId} className="authmw-hint">
          {props.hint}
        </small>
      )}
    </div>
  );
}

/** A polite status line (e.g. "E-mail sent"); nothing when `message` is empty. */
export function Status({ message, testId }: { message: string | null; testId?: string }) {
  if (!message) return null;
  return (
    <p role="status" className="authmw-status" data-testid={testId}>
      {message}
    </p>
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

/** The submit state of one form: pending, its error message, and a runner that fills both. */
export function useSubmit(describe: (error: unknown) => string = describeError) {
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const errorId = useId();
  const live = useRef(true);
  useEffect(() => {
    live.current = true;
    return () => {
      live.current = false;
    };
  }, []);
  const run = useCallback(
    async <T,>(action: () => Promise<T>): Promise<{ ok: true; value: T } | { ok: false; error: unknown }> => {
      setPending(true);
      setError(null);
      try {
        const value = await action();
        if (live.current) setPending(false);
        return { ok: true, value };
      } catch (err) {
        if (live.current) {
          setError(describe(err));
          setPending(false);
        }
        return { ok: false, error: err };
      }
    },
    [describe],
  );
  return { pending, error, setError, errorId: error ? errorId : undefined, formErrorId: errorId, run };
}

/** The text of a named form field. */
export const formValue = (form: HTMLFormElement, name: string) => String(new FormData(form).get(name) ?? "");

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
