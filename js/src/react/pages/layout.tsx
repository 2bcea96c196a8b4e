import { useCallback, useEffect, useId, useRef, useState, type ClipboardEvent, type ReactNode } from "react";
import { useSearchParams } from "react-router";
import { leave, RETURN_TO_PARAM, trustedReturnTo } from "../../return-to.js";
import { AuthLink } from "../auth-link.js";
import { useRouterNavigate } from "../redirect-method.js";
import type { SignInResult } from "../../models.js";
import { useHandlerOptions } from "../handler-options.js";
import { useAuthRedirect } from "../redirect.js";
import { useProject } from "../hooks.js";
import { useAuth } from "../use-auth.js";
import { describeError, useMessages, type Messages } from "../messages.js";

/** The full-page background of every handler page (carries the colour scheme). */
export function PageShell({ children, className }: { children: ReactNode; className?: string }) {
  const { colorScheme } = useHandlerOptions();
  const { lang } = useMessages();
  return (
    <div className={className ? `authmw-page ${className}` : "authmw-page"} data-color-scheme={colorScheme} lang={lang || undefined}>
      {children}
    </div>
  );
}

/** The app's logo (an image URL or an element) and name, as the top of a card shows them. */
export function Brand() {
  const { logo, appName } = useHandlerOptions();
  const project = useProject();
  const name = appName ?? (project.status === "ready" ? project.value.displayName : "");
  return (
    <div className="authmw-brand" data-testid="auth-brand">
      {typeof logo === "string" ? <img className="authmw-logo" src={logo} alt="" /> : logo}
      {/* A non-breaking space keeps the card from moving when the name arrives; the name fades in
          (a new element, so its animation runs once) instead of popping up. */}
      <span key={name ? 1 : 0} className="authmw-app-name">
        {name || "\u00a0"}
      </span>
    </div>
  );
}

/** The name of the app, for sentences ("to continue to …"); empty while the project loads. */
export function useAppName(): string {
  const { appName } = useHandlerOptions();
  const project = useProject();
  return appName ?? (project.status === "ready" ? project.value.displayName : "");
}

export interface AuthPageProps {
  title: string;
  /** A line under the title (sign-in and sign-up greet the visitor there). */
  subtitle?: ReactNode;
  /** Under the card's content, separated by a line (e.g. "No account yet? Create an account"). */
  footer?: ReactNode;
  children?: ReactNode;
  /** A progress indicator with this text (a page that is working: signing in, verifying). */
  busy?: string;
}

/** A centred card: logo and app name, the title, the content and an optional footer. */
export function AuthPage({ title, subtitle, footer, children, busy }: AuthPageProps) {
  return (
    <PageShell>
      <main className="authmw-card" aria-busy={busy ? true : undefined}>
        <header className="authmw-card-header">
          <Brand />
          <h1>{title}</h1>
          {subtitle && <p className="authmw-subtitle">{subtitle}</p>}
        </header>
        <div className="authmw-card-body">
          {busy && (
            <p role="status" className="authmw-progress" data-testid="auth-progress">
              <span className="authmw-spinner" aria-hidden="true" />
              {busy}
            </p>
          )}
          {children}
        </div>
        {footer && <footer className="authmw-card-footer">{footer}</footer>}
      </main>
    </PageShell>
  );
}

/** A horizontal rule with "or" in the middle, between sign-in methods. */
export function Divider() {
  const m = useMessages();
  return (
    <div className="authmw-divider" role="separator" aria-label={m.or}>
      <span className="authmw-divider-line" aria-hidden="true" />
      <span aria-hidden="true">{m.or}</span>
      <span className="authmw-divider-line" aria-hidden="true" />
    </div>
  );
}

export interface FieldProps {
  label: string;
  name: string;
  type: string;
  autoComplete: string;
  /** This field's own message (from submit-time validation); marks it invalid. */
  error?: string | null;
  /** Id of the form's message about this field (e.g. "Wrong e-mail or password."); marks it invalid. */
  errorId?: string;
  /** The form's useSubmit(): gives `error` (its message for this field's name) and `errorId` when those are not passed. */
  submit?: { fieldErrors: FieldErrors; errorId?: string };
  /** A hint shown under the field. */
  hint?: string;
  required?: boolean;
  defaultValue?: string;
  inputMode?: "text" | "numeric" | "email" | "url";
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  testId?: string;
  /** The message for an empty required field; default by type ("Enter your e-mail address."...). */
  missingMessage?: string;
  /** The message for a value of the wrong format; default by type. */
  invalidMessage?: string;
  autoFocus?: boolean;
  onPaste?: (event: ClipboardEvent<HTMLInputElement>) => void;
}

function defaultMessages(m: Messages, type: string, autoComplete: string): { missing: string; invalid: string } {
  if (type === "email") return { missing: m.emailRequired, invalid: m.emailInvalid };
  if (type === "password") {
    return { missing: autoComplete === "new-password" ? m.newPasswordRequired : m.passwordRequired, invalid: m.fieldInvalid };
  }
  if (type === "url") return { missing: m.fieldRequired, invalid: m.urlInvalid };
  return { missing: m.fieldRequired, invalid: m.fieldInvalid };
}

/** A labelled input with its hint and inline error; password inputs get a show/hide toggle. */
export function Field(props: FieldProps) {
  const m = useMessages();
  const id = useId();
  const [visible, setVisible] = useState(false);
  const hintId = `${id}-hint`;
  const ownErrorId = `${id}-error`;
  const error = props.error ?? props.submit?.fieldErrors[props.name];
  const errorId = props.errorId ?? props.submit?.errorId;
  const invalid = Boolean(error || errorId);
  const describedBy = [error ? ownErrorId : undefined, errorId, props.hint ? hintId : undefined].filter(Boolean).join(" ") || undefined;
  const isPassword = props.type === "password";
  const defaults = defaultMessages(m, props.type, props.autoComplete);
  const input = (
    <input
      id={id}
      name={props.name}
      type={isPassword && visible ? "text" : props.type}
      autoComplete={props.autoComplete}
      required={props.required ?? true}
      defaultValue={props.defaultValue}
      inputMode={props.inputMode}
      pattern={props.pattern}
      minLength={props.minLength}
      maxLength={props.maxLength}
      data-testid={props.testId}
      data-missing={props.missingMessage ?? defaults.missing}
      data-invalid={props.invalidMessage ?? defaults.invalid}
      autoFocus={props.autoFocus}
      onPaste={props.onPaste}
      aria-invalid={invalid ? true : undefined}
      aria-describedby={describedBy}
      spellCheck={props.type === "email" || isPassword ? false : undefined}
      autoCapitalize={props.type === "email" || isPassword ? "none" : undefined}
    />
  );
  return (
    <div className="authmw-field">
      <label htmlFor={id}>{props.label}</label>
      {isPassword ? (
        <div className="authmw-password">
          {input}
          <button
            type="button"
            className="authmw-toggle"
            aria-controls={id}
            aria-pressed={visible}
            data-testid={`${props.name}-visibility`}
            onClick={() => setVisible((v) => !v)}
          >
            <span aria-hidden="true">{visible ? m.hide : m.show}</span>
            <span className="authmw-sr-only">{visible ? m.hidePassword : m.showPassword}</span>
          </button>
        </div>
      ) : (
        input
      )}
      {props.hint && (
        <small id={hintId} className="authmw-hint">
          {props.hint}
        </small>
      )}
      {error && (
        <p id={ownErrorId} className="authmw-field-error" data-testid={`${props.name}-error`}>
          {error}
        </p>
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

/** The end of a flow that failed: its message (announced), the way back, and "Go home". */
export function Failed({ message, to, label }: { message: string; to: string; label: string }) {
  const m = useMessages();
  const { urls } = useAuth();
  return (
    <>
      <p role="alert" className="authmw-error" data-testid="auth-error">
        {message}
      </p>
      <div className="authmw-actions">
        <AuthLink className="authmw-button authmw-primary" to={to} data-testid="auth-way-back">
          {label}
        </AuthLink>
        <AuthLink className="authmw-button" to={urls.home}>
          {m.goHome}
        </AuthLink>
      </div>
    </>
  );
}

/**
 * The card of a link's page before it uses the link's one-time code: the question, the button that
 * uses it (`onConfirm`, once) and Cancel, home. Nothing happens on arrival, so neither another site
 * sending the browser here nor a mail scanner opening the link uses the code.
 */
export function ConfirmLink({ title, text, button, onConfirm }: { title: string; text: string; button: string; onConfirm: () => void }) {
  const m = useMessages();
  const { status, urls } = useAuth();
  const used = useRef(false);
  return (
    <AuthPage title={title} busy={status === "loading" ? m.loading : undefined}>
      {status !== "loading" && (
        <>
          <p data-testid="confirm-link-text">{text}</p>
          <div className="authmw-actions">
            <button
              type="button"
              className="authmw-primary"
              data-testid="confirm-link"
              onClick={() => {
                if (!used.current) onConfirm();
                used.current = true;
              }}
            >
              {button}
            </button>
            <AuthLink className="authmw-button" to={urls.home} data-testid="confirm-link-cancel">
              {m.cancel}
            </AuthLink>
          </div>
        </>
      )}
    </AuthPage>
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

/** The "E-mail" field (name "email") of a form run by `submit`. */
export function EmailField({ submit, autoComplete = "email", autoFocus }: { submit: FieldProps["submit"]; autoComplete?: string; autoFocus?: boolean }) {
  return <Field label={useMessages().email} name="email" type="email" autoComplete={autoComplete} submit={submit} autoFocus={autoFocus} />;
}

/** "New password" and "Repeat new password" of a form run by `submit` (fields newPassword / password and repeat). */
export function NewPasswordFields({ name, submit }: { name: string; submit: ReturnType<typeof useSubmit> }) {
  const m = useMessages();
  return (
    <>
      <Field
        label={m.newPassword}
        name={name}
        type="password"
        autoComplete="new-password"
        submit={submit}
      />
      <Field
        label={m.repeatNewPassword}
        name="repeat"
        type="password"
        autoComplete="new-password"
        missingMessage={m.repeatPasswordRequired}
        submit={submit}
      />
    </>
  );
}

/** The repeat field's message when the two new passwords differ (checked before any call). */
export function repeatMismatch(form: HTMLFormElement, name: string, m: Messages): FieldErrors {
  const repeat = formValue(form, "repeat");
  return repeat && formValue(form, name) !== repeat ? { repeat: m.passwordsDoNotMatch } : {};
}

/** The submit button: disabled with its progress text while the call runs. */
export function SubmitButton({ pending, label, pendingLabel, testId }: { pending: boolean; label: string; pendingLabel?: string; testId?: string }) {
  return (
    <button type="submit" className="authmw-primary" disabled={pending} aria-disabled={pending || undefined} data-testid={testId}>
      {pending ? (pendingLabel ?? label) : label}
    </button>
  );
}

export type FieldErrors = Record<string, string>;

/**
 * Checks the form's fields as the browser would (empty, wrong type, too short, pattern) and
 * returns a message per invalid field, taken from its data-missing / data-invalid attributes.
 */
export function checkFields(form: HTMLFormElement): FieldErrors {
  const errors: FieldErrors = {};
  for (const element of Array.from(form.elements)) {
    if (!(element instanceof HTMLInputElement) || !element.name || element.disabled) continue;
    const value = element.value;
    const missing = element.required && value.trim() === "";
    const wrong =
      !missing &&
      value !== "" &&
      ((element.type === "email" && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value.trim())) ||
        (element.minLength > 0 && value.length < element.minLength) ||
        (element.pattern !== "" && !new RegExp(`^(?:${element.pattern})$`, "u").test(value)) ||
        (element.type === "url" && !isHttpUrl(value)));
    if (missing) errors[element.name] = element.dataset.missing ?? "";
    else if (wrong) errors[element.name] = element.dataset.invalid ?? "";
  }
  return errors;
}

const isHttpUrl = (value: string) => {
  try {
    return ["http:", "https:"].includes(new URL(value).protocol);
  } catch {
    return false;
  }
};

/** Moves the focus to the form's first field marked invalid. Call it after React committed the marks (from an effect). */
function focusFirstInvalid(form: HTMLFormElement) {
  form.querySelector<HTMLElement>("[aria-invalid=true]")?.focus();
}

/**
 * The submit state of one form: pending, the form's error message, the fields' own messages,
 * a validator for submit time and a runner that fills the rest.
 */
export function useSubmit(describe?: (error: unknown, messages: Messages) => string) {
  const m = useMessages();
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [fieldErrors, setFieldErrors] = useState<FieldErrors>({});
  const errorId = useId();
  // A request to focus the first invalid field of a form; a new object each time, so the effect
  // runs after the render that marked the fields (not on a timer that may fire before it).
  const [focusRequest, setFocusRequest] = useState<{ form: HTMLFormElement } | null>(null);
  useEffect(() => {
    if (focusRequest) focusFirstInvalid(focusRequest.form);
  }, [focusRequest]);
  const live = useRef(true);
  useEffect(() => {
    live.current = true;
    return () => {
      live.current = false;
    };
  }, []);

  /** Checks the fields (plus `extra` messages); marks and focuses the first invalid one. True when all are fine. */
  const validate = useCallback((form: HTMLFormElement, extra: FieldErrors = {}): boolean => {
    const errors = { ...checkFields(form), ...extra };
    setFieldErrors(errors);
    setError(null);
    if (Object.keys(errors).length === 0) return true;
    setFocusRequest({ form });
    return false;
  }, []);

  const describeIn = useCallback((err: unknown) => (describe ? describe(err, m) : describeError(err, m)), [describe, m]);

  /** Shows a refusal of the service under the field it is about (not above the button) and focuses that field. */
  const showOnField = useCallback(
    (form: HTMLFormElement, name: string, err: unknown) => {
      setError(null);
      setFieldErrors({ [name]: describeIn(err) });
      setFocusRequest({ form });
    },
    [describeIn],
  );

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
          setError(describeIn(err));
          setPending(false);
        }
        return { ok: false, error: err };
      }
    },
    [describeIn],
  );
  return {
    pending,
    error,
    setError,
    fieldErrors,
    setFieldErrors,
    validate,
    showOnField,
    errorId: error ? errorId : undefined,
    formErrorId: errorId,
    run,
  };
}

/** The text of a named form field. */
export const formValue = (form: HTMLFormElement, name: string) => String(new FormData(form).get(name) ?? "");

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

/**
 * Goes to the sign-in page in place of this one, by the rule of leave: the router's navigation
 * when urls.signIn is on this origin (and under the router's basename), where the page says what
 * happened to the sign-in (`code`, a catalogue code, travels in the history entry's state, never
 * in the URL); else a page load, where it cannot travel: that sign-in page shows its usual state.
 */
export function useBackToSignIn(): (code: string) => void {
  const navigate = useRouterNavigate();
  const { urls } = useAuth();
  return useCallback((code: string) => leave(urls.signIn, navigate, true, undefined, { authmwError: code }), [navigate, urls.signIn]);
}

/** The page after a sign-in that may have created the user: after_auth_return_to, else after-sign-up / after-sign-in. */
export function useFinishSignIn() {
  const auth = useAuth();
  const leave = useAuthRedirect();
  const returnTo = useReturnTo();
  return (result: SignInResult) => leave(returnTo ?? (result.isNewUser ? auth.urls.afterSignUp : auth.urls.afterSignIn));
}

