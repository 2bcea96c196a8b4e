import { lazy, Suspense, useEffect, useRef, useState } from "react";
import { useParams } from "react-router";
import { AuthLink, useHere } from "../../auth-link.js";
import { withReturnTo } from "../../../return-to.js";
import { isKnownError } from "../../../known-error.js";
import { passkeysSupported } from "../../../passkey-support.js";
import { useContactChannels, usePermission, useProject, useTeamInvitations, useTeamMemberProfiles, useTeamPermissions, useTeams } from "../../hooks.js";
import { useAuth } from "../../use-auth.js";
import { describeError, describePasskeyError, useMessages } from "../../messages.js";
import { HttpStatusError } from "../../../http-errors.js";
import { ProviderLogo, useProviderAction, useProviderLogos } from "../../oauth/provider-buttons.js";
import { providerName } from "../../oauth/providers.js";
import { QrCode } from "../../qr-code.js";
import { useAuthRedirect } from "../../redirect.js";
import { AuthPage, Brand, EmailField, Field, FormError, formValue, NewPasswordFields, PageShell, repeatMismatch, Status, SubmitButton, useSubmit } from "../layout.js";
import { TotpCodeField } from "../mfa.js";
import { SectionKitContext, type SectionKit } from "./kit.js";
import type { AccountSection, SectionProps } from "./section.js";

/**
 * What the sections use from the rest of the package (see ./kit: they import none of it); the
 * onboarding page hands it to its own part that loads on demand.
 */
export const KIT: SectionKit = {
  useAuth,
  useContactChannels,
  usePermission,
  useTeamPermissions,
  useTeams,
  useTeamInvitations,
  useTeamMemberProfiles,
  useMessages,
  useAuthRedirect,
  describePasskeyError,
  describeError,
  HttpStatusError,
  isKnownError,
  passkeysSupported,
  EmailField,
  Field,
  FormError,
  formValue,
  NewPasswordFields,
  repeatMismatch,
  Status,
  SubmitButton,
  useSubmit,
  QrCode,
  TotpCodeField,
  ProviderLogo,
  useProviderAction,
  useProviderLogos,
  providerName,
};

/**
 * The sections of the page, in the order of its navigation. Each loads on demand (import()), so a
 * new section does not grow the handler's first load; a section takes what it needs from the
 * package through useSectionKit() (./kit), never by importing hooks, messages or layout.
 */
export const ACCOUNT_SECTIONS: readonly AccountSection[] = [
  { id: "profile", title: (m) => m.profileSection, shown: () => true, Component: lazy(() => import("./profile.js")) },
  { id: "emails", title: (m) => m.emailsSection, shown: () => true, Component: lazy(() => import("./emails.js")) },
  {
    id: "password",
    title: (m) => m.passwordSection,
    shown: ({ user, config }) => user.hasPassword || config?.credentialEnabled !== false,
    Component: lazy(() => import("./password.js")),
  },
  {
    id: "passkeys",
    title: (m) => m.passkeysSection,
    // A user who has a passkey can always remove it, even once the project turned passkeys off.
    shown: ({ user, config }) => Boolean(config?.passkeyEnabled) || user.passkeyAuthEnabled,
    Component: lazy(() => import("./passkeys.js")),
  },
  { id: "two-factor", title: (m) => m.twoFactorSection, shown: () => true, Component: lazy(() => import("./two-factor.js")) },
  {
    id: "connected-accounts",
    title: (m) => m.connectedAccountsSection,
    // Shown when the user has a linked account or the project offers a provider to link.
    shown: ({ user, config }) => user.oauthProviders.length > 0 || (config?.oauthProviders.length ?? 0) > 0,
    Component: lazy(() => import("./connected-accounts.js")),
  },
  {
    id: "sessions",
    title: (m) => m.sessionsSection,
    shown: () => true,
    // API 2.8 only: a 2.7 service has no session list (list() answers null).
    supported: async (auth) => (await auth.sessions.list()) !== null,
    Component: lazy(() => import("./sessions.js")),
  },
  {
    id: "api-keys",
    title: (m) => m.apiKeysSection,
    // API 2.8, when the project lets users make keys (a 2.7 service answers without the flag).
    shown: ({ config }) => Boolean(config?.allowUserApiKeys),
    Component: lazy(() => import("./api-keys.js")),
  },
  {
    id: "notifications",
    title: (m) => m.notificationsSection,
    shown: () => true,
    // API 2.8 only: a 2.7 service has no notification preferences (list() answers null).
    supported: async (auth) => (await auth.notificationPreferences.list()) !== null,
    Component: lazy(() => import("./notifications.js")),
  },
  { id: "teams", title: (m) => m.teamsSection, shown: () => true, Component: lazy(() => import("./teams.js")) },
  {
    id: "danger-zone",
    title: (m) => m.dangerZoneSection,
    shown: ({ config }) => Boolean(config?.clientUserDeletionEnabled),
    Component: lazy(() => import("./danger-zone.js")),
  },
];

/** Which sections the service supports (those without a `supported` check are). Asked once per user. */
function useSupported(userId: string | undefined): ReadonlySet<string> | null {
  const auth = useAuth();
  const [answer, setAnswer] = useState<{ userId: string; ids: Set<string> } | null>(null);
  useEffect(() => {
    if (!userId) return;
    let live = true;
    void Promise.all(
      ACCOUNT_SECTIONS.map(async (section) => {
        if (!section.supported) return section.id;
        try {
          return (await section.supported(auth)) ? section.id : null;
        } catch {
          return null; // A failed check leaves the section out rather than showing an error.
        }
      }),
    ).then((ids) => {
      if (live) setAnswer({ userId, ids: new Set(ids.filter((id): id is string => id !== null)) });
    });
    return () => {
      live = false;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [userId]);
  return answer && answer.userId === userId ? answer.ids : null;
}

/**
 * {handler}/account-settings/<section>: a navigation (one link per section, each its own URL, so
 * deep links and the browser's back work), then the chosen section; without a section, the first.
 */
export function AccountSettings() {
  const auth = useAuth();
  const m = useMessages();
  const here = useHere();
  const params = useParams();
  const project = useProject();
  const leave = useAuthRedirect();
  const [signingOut, setSigningOut] = useState(false);
  const supported = useSupported(auth.user?.id);
  const heading = useRef<HTMLHeadingElement>(null);
  const requested = (params["*"] ?? "").split("/")[0] ?? "";
  const base = auth.urls.accountSettings;

  const props: SectionProps | null = auth.user
    ? { user: auth.user, config: project.status === "ready" ? project.value.config : null }
    : null;
  // (Not memoized: props is a new object on every render, so a memo would recompute anyway.)
  const sections = props ? ACCOUNT_SECTIONS.filter((section) => section.shown(props) && (!section.supported || supported?.has(section.id))) : [];
  const current = requested ? ACCOUNT_SECTIONS.find((section) => section.id === requested) : sections[0];

  // A section chosen in the navigation takes the focus to its heading (not on the first load).
  const first = useRef(true);
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    heading.current?.focus();
  }, [requested]);

  // On a phone the sections are one scrolling row: the current one is scrolled into it.
  const nav = useRef<HTMLElement>(null);
  useEffect(() => {
    const link = nav.current?.querySelector<HTMLElement>("a[aria-current]");
    const row = link?.closest("ul");
    if (!link || !row || row.scrollWidth <= row.clientWidth) return;
    const { left, right } = link.getBoundingClientRect();
    const box = row.getBoundingClientRect();
    if (left < box.left || right > box.right) row.scrollLeft += left - box.left - (box.width - (right - left)) / 2;
  }, [requested, sections.length]);

  if (auth.status === "loading") {
    return (
      <AuthPage title={m.accountSettingsTitle}>
        <p role="status" className="authmw-hint">
          {m.loading}
        </p>
      </AuthPage>
    );
  }
  if (!auth.user || !props) {
    return (
      <AuthPage title={m.accountSettingsTitle}>
        <p>{m.signInToSeeSettings}</p>
        <AuthLink className="authmw-button authmw-primary" to={withReturnTo(auth.urls.signIn, here)}>
          {m.signIn}
        </AuthLink>
      </AuthPage>
    );
  }

  async function signOut() {
    setSigningOut(true);
    await auth.signOut().catch((error: unknown) => console.warn("Sign-out call failed; the local session was cleared anyway.", error));
    leave(auth.urls.afterSignOut);
  }

  // A section that is not offered (unknown, off in the project, or not supported by the service)
  // is not found; one still being checked waits for the answer.
  const waiting = current?.supported !== undefined && supported === null;
  const offered = current && sections.includes(current);
  const Section = offered ? current.Component : undefined;

  return (
    <PageShell className="authmw-page-settings">
      <div className="authmw-settings">
        <header className="authmw-topbar">
          <AuthLink to={auth.urls.home} className="authmw-back" data-testid="back-to-app">
            <span aria-hidden="true">←</span> {m.backToApp}
          </AuthLink>
          <Brand />
          <button type="button" className="authmw-small" onClick={signOut} disabled={signingOut} data-testid="settings-sign-out">
            {signingOut ? m.signingYouOut : m.signOut}
          </button>
        </header>
        <main className="authmw-settings-main">
          <h1>{m.accountSettingsTitle}</h1>
          <div className="authmw-settings-grid">
            <nav ref={nav} aria-label={m.settingsNavLabel} className="authmw-settings-nav">
              <ul>
                {sections.map((section) => (
                  <li key={section.id}>
                    <AuthLink
                      to={`${base}/${section.id}`}
                      aria-current={section === current ? "page" : undefined}
                      data-testid={`settings-nav-${section.id}`}
                    >
                      {section.title(m)}
                    </AuthLink>
                  </li>
                ))}
              </ul>
            </nav>
            <div className="authmw-settings-sections">
              {current && Section ? (
                <section
                  id={`authmw-${current.id}`}
                  aria-labelledby={`authmw-${current.id}-heading`}
                  className="authmw-section"
                  data-testid={`settings-${current.id}`}
                >
                  <h2 id={`authmw-${current.id}-heading`} ref={heading} tabIndex={-1}>
                    {current.title(m)}
                  </h2>
                  <SectionKitContext.Provider value={KIT}>
                    <Suspense fallback={<SectionPlaceholder label={m.loading} />}>
                      <Section {...props} />
                    </Suspense>
                  </SectionKitContext.Provider>
                </section>
              ) : waiting ? (
                <section className="authmw-section">
                  <SectionPlaceholder label={m.loading} />
                </section>
              ) : (
                <section className="authmw-section" data-testid="settings-not-found">
                  <h2 ref={heading} tabIndex={-1}>
                    {m.notFoundTitle}
                  </h2>
                  <p>{m.settingsSectionNotFound}</p>
                  {sections[0] && (
                    <AuthLink className="authmw-button" to={`${base}/${sections[0].id}`}>
                      {sections[0].title(m)}
                    </AuthLink>
                  )}
                </section>
              )}
            </div>
          </div>
        </main>
      </div>
    </PageShell>
  );
}

/** Holds a section's place while the service is asked whether it offers it (no jump when it arrives). */
function SectionPlaceholder({ label }: { label: string }) {
  return (
    <p role="status" className="authmw-hint authmw-section-placeholder">
      {label}
    </p>
  );
}
