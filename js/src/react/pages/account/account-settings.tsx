import { useEffect, useState } from "react";
import { Link, useLocation } from "react-router";
import { withReturnTo } from "../../../urls";
import { useAuth, useProject } from "../../hooks";
import { useMessages } from "../../messages";
import { useAuthRedirect } from "../../redirect";
import { AuthPage, Brand, PageShell } from "../layout";
import { connectedAccountsSection } from "./connected-accounts";
import { dangerZoneSection } from "./danger-zone";
import { emailsSection } from "./emails";
import { passkeysSection } from "./passkeys";
import { passwordSection } from "./password";
import { profileSection } from "./profile";
import { SectionCard, type AccountSection, type SectionProps } from "./section";
import { teamsSection } from "./teams";
import { twoFactorSection } from "./two-factor";

/** The sections of the page, in the order of its navigation. */
export const ACCOUNT_SECTIONS: readonly AccountSection[] = [
  profileSection,
  emailsSection,
  passwordSection,
  passkeysSection,
  twoFactorSection,
  connectedAccountsSection,
  teamsSection,
  dangerZoneSection,
];

/** {handler}/account-settings: a navigation, then one card per section; a link back to the app and sign-out. */
export function AccountSettings() {
  const auth = useAuth();
  const m = useMessages();
  const location = useLocation();
  const project = useProject();
  const leave = useAuthRedirect();
  const [signingOut, setSigningOut] = useState(false);
  const [current, setCurrent] = useState<string | null>(null);
  const sectionKey = auth.user ? `${auth.user.id}:${project.status}` : "";

  // The navigation marks the section in view (aria-current), as the page scrolls.
  useEffect(() => {
    if (!sectionKey || typeof IntersectionObserver === "undefined") return;
    const visible = new Map<string, boolean>();
    const observer = new IntersectionObserver(
      (entries) => {
        for (const entry of entries) visible.set(entry.target.id, entry.isIntersecting);
        const first = Array.from(document.querySelectorAll<HTMLElement>(".authmw-section")).find((el) => visible.get(el.id));
        if (first) setCurrent(first.id);
      },
      { rootMargin: "0px 0px -60% 0px" },
    );
    document.querySelectorAll(".authmw-section").forEach((el) => observer.observe(el));
    return () => observer.disconnect();
  }, [sectionKey]);

  if (auth.status === "loading") {
    return (
      <AuthPage title={m.accountSettingsTitle}>
        <p role="status" className="authmw-hint">
          {m.loading}
        </p>
      </AuthPage>
    );
  }
  if (!auth.user) {
    return (
      <AuthPage title={m.accountSettingsTitle}>
        <p>{m.signInToSeeSettings}</p>
        <Link className="authmw-button authmw-primary" to={withReturnTo(auth.urls.signIn, `${location.pathname}${location.search}`)}>
          {m.signIn}
        </Link>
      </AuthPage>
    );
  }

  const props: SectionProps = { user: auth.user, config: project.status === "ready" ? project.value.config : null };
  const sections = ACCOUNT_SECTIONS.filter((section) => section.shown(props));

  async function signOut() {
    setSigningOut(true);
    await auth.signOut().catch((error: unknown) => console.warn("Sign-out call failed; the local session was cleared anyway.", error));
    leave(auth.urls.afterSignOut);
  }

  return (
    <PageShell className="authmw-page-settings">
      <div className="authmw-settings">
        <header className="authmw-topbar">
          <Link to={auth.urls.home} className="authmw-back" data-testid="back-to-app">
            <span aria-hidden="true">←</span> {m.backToApp}
          </Link>
          <Brand />
          <button type="button" className="authmw-small" onClick={signOut} disabled={signingOut} data-testid="settings-sign-out">
            {signingOut ? m.signingYouOut : m.signOut}
          </button>
        </header>
        <main className="authmw-settings-main">
          <h1>{m.accountSettingsTitle}</h1>
          <div className="authmw-settings-grid">
            <nav aria-label={m.settingsNavLabel} className="authmw-settings-nav">
              <ul>
                {sections.map((section) => (
                  <li key={section.id}>
                    <a
                      href={`#authmw-${section.id}`}
                      aria-current={current === `authmw-${section.id}` ? "location" : undefined}
                      onClick={() => setCurrent(`authmw-${section.id}`)}
                      data-testid={`settings-nav-${section.id}`}
                    >
                      {section.title(m)}
                    </a>
                  </li>
                ))}
              </ul>
            </nav>
            <div className="authmw-settings-sections">
              {sections.map((section) => (
                <SectionCard key={section.id} id={section.id} title={section.title(m)}>
                  <section.Component {...props} />
                </SectionCard>
              ))}
            </div>
          </div>
        </main>
      </div>
    </PageShell>
  );
}
