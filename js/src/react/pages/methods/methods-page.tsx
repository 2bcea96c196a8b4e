import { useEffect, useId, useRef, useState, type ReactNode } from "react";
import { useLocation, useNavigate } from "react-router";
import { AuthLink } from "../../auth-link.js";
import { SignOutLink } from "../../sign-out-link.js";
import type { CurrentUser, ProjectConfig } from "../../../models.js";
import { NEW_PROJECT_CONFIG } from "../../../new-project-config.js";
import { withReturnTo } from "../../../return-to.js";
import { useProject } from "../../hooks.js";
import { useAuth } from "../../use-auth.js";
import { sentenceOfCode, useMessages } from "../../messages.js";
import { useAuthRedirect } from "../../redirect.js";
import { AuthPage, Divider, FormError, useAppName, useReturnTo } from "../layout.js";
import { MfaPage } from "../mfa.js";
import { MagicLinkForm } from "./magic-link-form.js";
import { OAuthButtons, oauthButtonsShown } from "./oauth-buttons.js";
import { PasskeyButton, passkeyButtonShown } from "./passkey-button.js";
import { PasswordForm } from "./password-form.js";
import type { AuthMode, MethodProps } from "./types.js";

/** What a page assumes when the project's configuration cannot be loaded: password sign-in only. */
const FALLBACK_CONFIG: ProjectConfig = NEW_PROJECT_CONFIG;

/**
 * The sign-in and sign-up pages: the methods the project enables, in this order: OAuth buttons,
 * the passkey button, an "or" divider, then the e-mail forms (password and e-mail link, as tabs
 * when both are on), and a footer link to the other page.
 */
export function MethodsPage({ mode }: { mode: AuthMode }) {
  const auth = useAuth();
  const m = useMessages();
  const project = useProject();
  const returnTo = useReturnTo();
  const leave = useAuthRedirect();
  const appName = useAppName();
  const [attemptCode, setAttemptCode] = useState<string | null>(null);
  const finished = useRef(false);
  const signIn = mode === "sign-in";
  const title = signIn ? m.signInTitle : m.signUpTitle;
  const subtitle = signIn ? m.signInSubtitle : m.signUpSubtitle;
  // A sign-in that failed elsewhere (Deny at the OAuth provider) comes back here with its code in
  // the history entry's state (never the URL): only the page's own sentence for it is shown, and
  // once: the code is kept in the page's state and cleared from the history entry, so a reload
  // (or coming back to this entry) shows a plain sign-in page.
  const location = useLocation() as { state: { authmwError?: unknown } | null; pathname: string; search: string; hash: string };
  const navigate = useNavigate();
  const [arrivedCode] = useState(() =>
    signIn && typeof location.state?.authmwError === "string" ? location.state.authmwError : null,
  );
  const stateCode = location.state?.authmwError;
  useEffect(() => {
    if (stateCode === undefined) return;
    void navigate(`${location.pathname}${location.search}${location.hash}`, { replace: true, state: null });
  }, [stateCode, navigate, location.pathname, location.search, location.hash]);
  const arrivedKey = arrivedCode ? sentenceOfCode(arrivedCode) : undefined;
  const arrivedWith = arrivedCode ? (arrivedKey ? m[arrivedKey] : m.oauthNotCompleted) : null;
  const config = project.status === "ready" ? project.value.config : project.status === "error" ? FALLBACK_CONFIG : null;

  const onSignedIn = (isNewUser?: boolean) => {
    finished.current = true;
    leave(returnTo ?? (isNewUser ? auth.urls.afterSignUp : auth.urls.afterSignIn));
  };

  const footer =
    signIn && config && !config.signUpEnabled ? undefined : (
      <p>
        {signIn ? m.noAccountYet : m.haveAccount}{" "}
        <AuthLink to={withReturnTo(signIn ? auth.urls.signUp : auth.urls.signIn, returnTo)} data-testid="switch-auth-page">
          {signIn ? m.createAccountLink : m.signInLink}
        </AuthLink>
      </p>
    );

  if (attemptCode) {
    return <MfaPage attemptCode={attemptCode} onSignedIn={(result) => onSignedIn(result.isNewUser)} onBack={() => setAttemptCode(null)} />;
  }

  // An anonymous user (an app with allowAnonymous) has no account yet: the forms are for them,
  // and signing up keeps their id (service-api A7.3).
  if (auth.user && !auth.user.isAnonymous && !finished.current) {
    return <AlreadySignedIn user={auth.user} to={returnTo ?? (signIn ? auth.urls.afterSignIn : auth.urls.afterSignUp)} />;
  }

  if (!config) {
    return (
      <AuthPage title={title} subtitle={subtitle} footer={footer}>
        <p role="status" className="authmw-hint">
          {m.loading}
        </p>
      </AuthPage>
    );
  }

  if (!signIn && !config.signUpEnabled) {
    return (
      <AuthPage title={title} subtitle={subtitle} footer={footer}>
        <p role="status" data-testid="sign-up-closed">
          {m.signUpClosed(appName || m.thisProject)}
        </p>
      </AuthPage>
    );
  }

  const props: MethodProps = { mode, returnTo, config, onSignedIn, onMfaRequired: setAttemptCode };
  const buttons: ReactNode[] = [];
  if (oauthButtonsShown(config, mode)) buttons.push(<OAuthButtons key="oauth" {...props} />);
  if (passkeyButtonShown(config, mode)) buttons.push(<PasskeyButton key="passkey" {...props} />);
  const forms: Panel[] = [];
  if (config.credentialEnabled) forms.push({ id: "password", label: m.passwordTab, content: <PasswordForm {...props} /> });
  if (config.magicLinkEnabled) forms.push({ id: "magic-link", label: m.emailLinkTab, content: <MagicLinkForm {...props} /> });

  return (
    <AuthPage title={title} subtitle={subtitle} footer={footer}>
      <FormError message={arrivedWith} />
      {buttons.length > 0 && (
        <div className="authmw-methods" data-testid="auth-method-buttons">
          {buttons}
        </div>
      )}
      {buttons.length > 0 && forms.length > 0 && <Divider />}
      {forms.length > 0 && <FormTabs panels={forms} />}
      {buttons.length === 0 && forms.length === 0 && <p role="status">{m.noMethodsEnabled}</p>}
    </AuthPage>
  );
}

/** The card of a page that signs in, for a user who is signed in already: go on (`to`), or sign out. */
export function AlreadySignedIn({ user, to }: { user: CurrentUser; to: string }) {
  const m = useMessages();
  return (
    <AuthPage title={m.alreadySignedInTitle}>
      <p data-testid="already-signed-in">
        {m.signedInAs} <strong>{user.primaryEmail ?? user.displayName ?? user.id}</strong>.
      </p>
      <div className="authmw-actions">
        <AuthLink className="authmw-button authmw-primary" to={to}>
          {m.continue}
        </AuthLink>
        <SignOutLink className="authmw-button">{m.signOut}</SignOutLink>
      </div>
    </AuthPage>
  );
}

interface Panel {
  id: string;
  label: string;
  content: ReactNode;
}

/** One panel, or tabs between several (WAI-ARIA tabs: arrow keys move between them). */
function FormTabs({ panels }: { panels: Panel[] }) {
  const m = useMessages();
  const [tab, setTab] = useState(panels[0]!.id);
  const tabsId = useId();
  const current = panels.find((p) => p.id === tab) ?? panels[0]!;
  if (panels.length === 1) return <>{current.content}</>;
  return (
    <>
      <div role="tablist" aria-label={m.methodTabsLabel} className="authmw-tabs">
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
            onClick={() => setTab(panel.id)}
            onKeyDown={(event) => {
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
      <div id={`${tabsId}-panel`} role="tabpanel" aria-labelledby={`${tabsId}-${current.id}-tab`}>
        {current.content}
      </div>
    </>
  );
}
