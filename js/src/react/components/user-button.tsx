import { useId, useState, type ReactElement } from "react";
import type { CurrentUser } from "../../models.js";
import { useTeams, useUser } from "../hooks.js";
import { useAuth } from "../use-auth.js";
import { authPageUrl } from "../../return-to.js";
import { AuthLink, usePageLocation } from "../auth-link.js";
import { SignOutLink } from "../sign-out-link.js";
import { Avatar } from "./avatar.js";
import { CheckIcon, PersonIcon, SignInIcon, SignOutIcon } from "./icons.js";
import { useMenuButton } from "./menu.js";
import { ComponentStyles, rootProps, type ComponentStyleProps } from "./theme.js";
import { textsWith, type ComponentTexts } from "./texts.js";
import { VerificationNotice } from "./verification-notice-slot.js";

export interface UserButtonProps extends ComponentStyleProps {
  /** Offer the user's teams in the menu (when they have any); default true. */
  showTeams?: boolean;
  /** Any part of the texts replaced (DEFAULT_COMPONENT_TEXTS). */
  texts?: Partial<ComponentTexts>;
  /**
   * Show the notice after a sign-up that sent a verification e-mail (<VerificationNotice>, at
   * the bottom of the window); default true.
   */
  verificationNotice?: boolean;
}

/**
 * The signed-in user's avatar as a menu button (the ARIA menu button pattern): their name and
 * e-mail, account settings, a switch between their teams, and sign-out in one step. A guest (an
 * anonymous user, in an app with allowAnonymous) is offered sign-up (which keeps their user id
 * and data) and sign-in instead: no account settings, teams or sign-out, which would throw the
 * guest's data away. Nothing for a signed-out visitor; a blank circle of the same size while the
 * session loads.
 */
export function UserButton({ colorScheme, className, showTeams = true, texts, verificationNotice = true }: UserButtonProps) {
  const state = useUser();
  if (state.status === "signed-out") return null;
  return (
    <span {...rootProps("authmw-user-button", className, colorScheme)} data-testid="user-button">
      <ComponentStyles />
      {state.status === "loading" ? (
        <span className="authmw-trigger" aria-hidden="true">
          <span className="authmw-avatar authmw-placeholder" />
        </span>
      ) : (
        <UserMenu user={state.user} showTeams={showTeams} t={textsWith(texts)} />
      )}
      {verificationNotice && <VerificationNotice texts={texts} colorScheme={colorScheme} />}
    </span>
  );
}

function nameOf(user: CurrentUser, t: ComponentTexts): string {
  return user.displayName || user.primaryEmail || (user.isAnonymous ? t.anonymousUser : t.accountSettings);
}

function UserMenu({ user, showTeams, t }: { user: CurrentUser; showTeams: boolean; t: ComponentTexts }) {
  const accountSettings = useAuth((auth) => auth.urls.accountSettings);
  const { open, setOpen, close, root, trigger, menu, onTriggerKey, onMenuKey, onRootBlur } = useMenuButton();
  const id = useId();
  const name = nameOf(user, t);

  return (
    <span
      ref={root}
      className="authmw-menu-button"
      onBlur={onRootBlur}
    >
      <button
        ref={trigger}
        type="button"
        className="authmw-trigger"
        id={`${id}-button`}
        aria-haspopup="menu"
        aria-expanded={open !== null}
        aria-controls={open ? `${id}-menu` : undefined}
        onClick={() => setOpen(open ? null : "first")}
        onKeyDown={onTriggerKey}
        data-testid="user-button-trigger"
      >
        <Avatar name={name} imageUrl={user.profileImageUrl} />
        <span className="authmw-sr-only">{t.accountMenu(name)}</span>
      </button>
      {open && (
        <div className="authmw-popover" tabIndex={-1} onKeyDown={onMenuKey} data-testid="user-button-menu">
          <div className="authmw-menu-header">
            <Avatar name={name} imageUrl={user.profileImageUrl} size="large" />
            <div className="authmw-menu-who" id={`${id}-who`}>
              <span className="authmw-menu-name" data-testid="user-button-name">
                {name}
              </span>
              {user.displayName && user.primaryEmail && <span className="authmw-menu-email">{user.primaryEmail}</span>}
              {user.isAnonymous && <span className="authmw-menu-email">{t.guestHint}</span>}
            </div>
          </div>
          <div role="menu" id={`${id}-menu`} aria-labelledby={`${id}-button`} ref={menu}>
            {user.isAnonymous ? (
              <GuestItems t={t} onDone={() => close(false)} />
            ) : (
              <>
                <AuthLink
                  to={accountSettings}
                  role="menuitem"
                  tabIndex={-1}
                  className="authmw-menu-item"
                  onClick={() => close(false)}
                  data-testid="user-button-account-settings"
                >
                  <PersonIcon />
                  <span className="authmw-menu-item-label">{t.accountSettings}</span>
                </AuthLink>
                {showTeams && <MenuTeams user={user} t={t} onDone={() => close(true)} />}
                <div role="separator" />
                <SignOutLink role="menuitem" tabIndex={-1} className="authmw-menu-item" data-testid="user-button-sign-out">
                  <SignOutIcon />
                  <span className="authmw-menu-item-label">{t.signOut}</span>
                </SignOutLink>
              </>
            )}
          </div>
        </div>
      )}
    </span>
  );
}

/** A guest's items: sign up (the service keeps their id and data) and sign in, coming back here. */
function GuestItems({ t, onDone }: { t: ComponentTexts; onDone(): void }) {
  const urls = useAuth((auth) => auth.urls);
  const location = usePageLocation();
  const item = (page: string, label: string, testId: string, icon: ReactElement) => (
    <AuthLink to={authPageUrl(page, location)} role="menuitem" tabIndex={-1} className="authmw-menu-item" onClick={onDone} data-testid={testId}>
      {icon}
      <span className="authmw-menu-item-label">{label}</span>
    </AuthLink>
  );
  return (
    <>
      {item(urls.signUp, t.signUp, "user-button-sign-up", <PersonIcon />)}
      {item(urls.signIn, t.signIn, "user-button-sign-in", <SignInIcon />)}
    </>
  );
}

/** The user's teams as radio items (loaded when the menu opens; none shown when they have none). */
function MenuTeams({ user, t, onDone }: { user: CurrentUser; t: ComponentTexts; onDone(): void }) {
  const teams = useTeams();
  const selectTeam = useAuth((auth) => auth.selectTeam);
  const [pending, setPending] = useState(false);
  const [failed, setFailed] = useState(false);
  const labelId = useId();
  if (teams.status !== "ready" || teams.value.length === 0) return null;
  const choose = async (teamId: string) => {
    if (teamId === user.selectedTeamId) return onDone();
    setPending(true);
    setFailed(false);
    try {
      await selectTeam(teamId);
      onDone();
    } catch {
      setFailed(true);
    } finally {
      setPending(false);
    }
  };
  return (
    <>
      <div role="separator" />
      <div role="group" aria-labelledby={labelId} data-testid="user-button-teams">
        <div className="authmw-menu-label" id={labelId}>
          {t.teams}
        </div>
        {teams.value.map((team) => (
          <button
            key={team.id}
            type="button"
            role="menuitemradio"
            aria-checked={team.id === user.selectedTeamId}
            aria-disabled={pending || undefined}
            tabIndex={-1}
            className="authmw-menu-item"
            onClick={() => !pending && void choose(team.id)}
          >
            <Avatar name={team.displayName} imageUrl={team.profileImageUrl} size="small" />
            <span className="authmw-menu-item-label">{team.displayName}</span>
            {team.id === user.selectedTeamId && <CheckIcon />}
          </button>
        ))}
        {failed && (
          <span role="alert" className="authmw-ui-error authmw-menu-error">
            {t.teamNotSelected}
          </span>
        )}
      </div>
    </>
  );
}
