import { useCallback, useEffect, useMemo, useState, useSyncExternalStore } from "react";
import type { AsyncCache, CachedState } from "../cache";
import type { AuthController, AuthStatus, CallbackOptions, MagicLinkOptions, SignUpOptions, UserState } from "../client";
import type { ContactChannelsApi } from "../contact-channels";
import type {
  ContactChannel,
  CurrentUser,
  CurrentUserUpdate,
  Project,
  SignInResult,
  Team,
  TeamInvitation,
  TeamMemberProfile,
  TeamPermission,
} from "../models";
import type { TeamInvitationsApi, TeamMemberProfilesApi, TeamPermissionsApi, TeamsApi } from "../teams";
import type { GetAccessTokenOptions } from "../store";
import type { ConnectedAccount, GetConnectedAccountOptions, OAuthApi, SignInWithOAuthOptions } from "../oauth";
import type { TotpSetup } from "../totp";
import { authPageUrl, type AuthUrls } from "../urls";
import { useAuthController } from "./context";

const SERVER_SNAPSHOT: UserState = { status: "loading", user: null };
const serverSnapshot = () => SERVER_SNAPSHOT;

function useUserState(controller: AuthController): UserState {
  return useSyncExternalStore(controller.subscribe, controller.getUserState, serverSnapshot);
}

/** The signed-in user as a status union: loading, signed-out, or signed-in with `user`. */
export function useUser(): UserState {
  return useUserState(useAuthController("useUser"));
}

export interface UseAuthResult {
  status: AuthStatus;
  user: CurrentUser | null;
  urls: AuthUrls;
  signIn(email: string, password: string): Promise<CurrentUser | null>;
  signUp(email: string, password: string, options?: SignUpOptions): Promise<CurrentUser | null>;
  signOut(): Promise<void>;
  getAccessToken(options?: GetAccessTokenOptions): Promise<string | null>;
  /** `{"x-stack-auth": ...}` to forward the session to your own back end. */
  getAuthHeaders(): Promise<{ "x-stack-auth": string }>;
  verifyEmail(code: string): Promise<void>;
  updateUser(update: CurrentUserUpdate): Promise<CurrentUser>;
  /** Deletes the signed-in user (the project must allow client user deletion) and signs out. */
  deleteUser(): Promise<void>;
  getProject(): Promise<Project>;
  /** Goes to the sign-in page and comes back to the current page afterwards. */
  redirectToSignIn(): void;
  sendMagicLinkEmail(email: string, options?: MagicLinkOptions): Promise<{ nonce: string }>;
  signInWithMagicLink(code: string, nonce?: string): Promise<SignInResult>;
  signInWithMfa(attemptCode: string, totp: string): Promise<SignInResult>;
  sendForgotPasswordEmail(email: string, options?: CallbackOptions): Promise<void>;
  verifyPasswordResetCode(code: string): Promise<void>;
  resetPassword(options: { code: string; password: string }): Promise<void>;
  updatePassword(options: { oldPassword: string; newPassword: string }): Promise<void>;
  setPassword(options: { password: string }): Promise<void>;
  sendVerificationEmail(options?: CallbackOptions): Promise<void>;
  selectTeam(teamId: string | null): Promise<CurrentUser>;
  /** Passkey sign-in (see AuthController.signInWithPasskey; `autofill` for conditional UI). */
  signInWithPasskey(options?: { autofill?: boolean }): Promise<SignInResult>;
  registerPasskey(): Promise<CurrentUser>;
  removePasskey(): Promise<CurrentUser>;
  /** A new TOTP secret and otpauth:// URI; enableTotp(setup, code) turns it on once a code matches. */
  createTotpSetup(): Promise<TotpSetup>;
  enableTotp(setup: TotpSetup, code: string): Promise<CurrentUser>;
  disableTotp(): Promise<CurrentUser>;
  teams: TeamsApi;
  teamMemberProfiles: TeamMemberProfilesApi;
  teamPermissions: TeamPermissionsApi;
  teamInvitations: TeamInvitationsApi;
  contactChannels: ContactChannelsApi;
  /** OAuth sign-in, linking and connected accounts. */
  oauth: OAuthApi;
  /** Sends the browser to the provider's sign-in page; comes back to returnTo (relative) if given. */
  signInWithOAuth(provider: string, options?: SignInWithOAuthOptions): Promise<void>;
}

export function useAuth(): UseAuthResult {
  const controller = useAuthController("useAuth");
  const state = useUserState(controller);
  return useMemo(
    () => ({
      status: state.status,
      user: state.user,
      urls: controller.urls,
      signIn: (email, password) => controller.signInWithCredential(email, password),
      signUp: (email, password, options) => controller.signUpWithCredential(email, password, options),
      signOut: () => controller.signOut(),
      getAccessToken: (options) => controller.getAccessToken(options),
      getAuthHeaders: () => controller.getAuthHeaders(),
      verifyEmail: (code) => controller.verifyEmail(code),
      updateUser: (update) => controller.updateUser(update),
      deleteUser: () => controller.deleteUser(),
      getProject: () => controller.getProject(),
      redirectToSignIn: () => window.location.assign(authPageUrl(controller.urls.signIn, window.location)),
      sendMagicLinkEmail: (email, options) => controller.sendMagicLinkEmail(email, options),
      signInWithMagicLink: (code, nonce) => controller.signInWithMagicLink(code, nonce),
      signInWithMfa: (attemptCode, totp) => controller.signInWithMfa(attemptCode, totp),
      sendForgotPasswordEmail: (email, options) => controller.sendForgotPasswordEmail(email, options),
      verifyPasswordResetCode: (code) => controller.verifyPasswordResetCode(code),
      resetPassword: (options) => controller.resetPassword(options),
      updatePassword: (options) => controller.updatePassword(options),
      setPassword: (options) => controller.setPassword(options),
      sendVerificationEmail: (options) => controller.sendVerificationEmail(options),
      selectTeam: (teamId) => controller.selectTeam(teamId),
      signInWithPasskey: (options) => controller.signInWithPasskey(options),
      registerPasskey: () => controller.registerPasskey(),
      removePasskey: () => controller.removePasskey(),
      createTotpSetup: () => controller.createTotpSetup(),
      enableTotp: (setup, code) => controller.enableTotp(setup, code),
      disableTotp: () => controller.disableTotp(),
      teams: controller.teams,
      teamMemberProfiles: controller.teamMemberProfiles,
      teamPermissions: controller.teamPermissions,
      teamInvitations: controller.teamInvitations,
      contactChannels: controller.contactChannels,
      oauth: controller.oauth,
      signInWithOAuth: (provider, options) => controller.oauth.signIn(provider, options),
    }),
    [controller, state],
  );
}

const LOADING: CachedState<never> = { status: "loading", value: undefined, error: undefined };
const noSubscription = () => () => {};
const loadingSnapshot = () => LOADING;

/** A cached value (spec 4) as a status union; `args` null = nothing to load (stays loading). */
export function useCachedValue<A extends readonly unknown[], V>(cache: AsyncCache<A, V>, args: A | null): CachedState<V> {
  const key = args === null ? null : JSON.stringify(args); // args are compared by value
  const subscribe = useCallback((listener: () => void) => cache.subscribe(args!, listener), [cache, key]);
  const getSnapshot = useCallback(() => cache.getSnapshot(...args!), [cache, key]);
  return useSyncExternalStore(
    key === null ? noSubscription : subscribe,
    key === null ? loadingSnapshot : getSnapshot,
    loadingSnapshot,
  );
}

/** The signed-in user's teams ([] when signed out); re-fetched after team changes. */
export function useTeams(): CachedState<Team[]> {
  return useCachedValue(useAuthController("useTeams").caches.teams, []);
}

/** The user's selected team: loading while the user loads, null when none (or signed out). */
export function useSelectedTeam(): CachedState<Team | null> {
  const state = useUserState(useAuthController("useSelectedTeam"));
  const team = state.user?.selectedTeam ?? null;
  return useMemo(
    () =>
      state.status === "loading"
        ? LOADING
        : { status: "ready", value: state.status === "signed-in" ? team : null, error: undefined },
    [state.status, team],
  );
}

/** The signed-in user's contact channels (e-mails). */
export function useContactChannels(): CachedState<ContactChannel[]> {
  return useCachedValue(useAuthController("useContactChannels").caches.contactChannels, []);
}

/** The signed-in user's permissions in a team, contained ones included; null teamId = loading. */
export function useTeamPermissions(teamId: string | null): CachedState<TeamPermission[]> {
  return useCachedValue(useAuthController("useTeamPermissions").caches.teamPermissions, teamId ? [teamId] : null);
}

/** Whether the user holds `permissionId` in the team: null while loading (or on error). */
export function usePermission(teamId: string | null, permissionId: string): boolean | null {
  const permissions = useTeamPermissions(teamId);
  return permissions.status === "ready" ? permissions.value.some((p) => p.id === permissionId) : null;
}

/** Profiles of a team's members. */
export function useTeamMemberProfiles(teamId: string | null): CachedState<TeamMemberProfile[]> {
  return useCachedValue(useAuthController("useTeamMemberProfiles").caches.teamMemberProfiles, teamId ? [teamId] : null);
}

/** Pending invitations of a team. */
export function useTeamInvitations(teamId: string | null): CachedState<TeamInvitation[]> {
  return useCachedValue(useAuthController("useTeamInvitations").caches.teamInvitations, teamId ? [teamId] : null);
}

/** The project's client view (configuration flags such as magicLinkEnabled). */
export function useProject(): CachedState<Project> {
  return useCachedValue(useAuthController("useProject").caches.project, []);
}

/**
 * The signed-in user's account of `provider` with an access token covering `scopes`
 * (POST /connected-accounts/me/{provider}/access-token). `value` is null when the user has not
 * connected it or not granted the scopes; with `or: "redirect"` the link flow starts instead.
 */
export function useConnectedAccount(
  provider: string,
  options: GetConnectedAccountOptions = {},
): CachedState<ConnectedAccount | null> {
  const controller = useAuthController("useConnectedAccount");
  const state = useUserState(controller);
  const userId = state.status === "signed-in" ? state.user.id : null;
  const scopes = (options.scopes ?? []).join(" ");
  const or = options.or ?? "return-null";
  const [result, setResult] = useState<CachedState<ConnectedAccount | null>>(LOADING);
  useEffect(() => {
    if (!userId) return;
    let live = true;
    setResult(LOADING);
    controller.oauth.getConnectedAccount(provider, { scopes: scopes ? scopes.split(" ") : [], or }).then(
      (value) => live && setResult({ status: "ready", value, error: undefined } as CachedState<ConnectedAccount | null>),
      (error: unknown) => live && setResult({ status: "error", value: undefined, error } as CachedState<ConnectedAccount | null>),
    );
    return () => {
      live = false;
    };
  }, [controller, provider, scopes, or, userId]);
  if (state.status === "signed-out") return SIGNED_OUT;
  return userId ? result : LOADING;
}

const SIGNED_OUT: CachedState<null> = { status: "ready", value: null, error: undefined };
