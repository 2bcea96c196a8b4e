import { useCallback, useEffect, useMemo, useState, useSyncExternalStore } from "react";
import type { AsyncCache, CachedState } from "../cache.js";
import type { AuthController, UserState } from "../controller.js";
import type {
  ContactChannel,
  Project,
  ReceivedTeamInvitation,
  Team,
  TeamInvitation,
  TeamMemberProfile,
  TeamPermission,
  ProjectPermission,
} from "../models.js";
import type { ConnectedAccount, GetConnectedAccountOptions } from "../oauth.js";
import { useAuthController } from "./context.js";

/** The user state a server renders (and hydration starts from). */
export const SERVER_SNAPSHOT: UserState = { status: "loading", user: null };
const serverSnapshot = () => SERVER_SNAPSHOT;

function useUserState(controller: AuthController): UserState {
  return useSyncExternalStore(controller.subscribe, controller.getUserState, serverSnapshot);
}

export interface UseUserOptions {
  /**
   * What to do when nobody is signed in (once the session has loaded):
   * - "return-null" (default): return the "signed-out" state;
   * - "redirect": send the browser to the sign-in page, which comes back to this page afterwards
   *   (its `after_auth_return_to`, kept when this page already carries one); the state stays
   *   "loading" meanwhile, so the page shows nothing of a signed-in user's;
   * - "throw": throw an Error during render (as Stack's SDK does), for the app's error boundary;
   * - "anonymous": sign up an anonymous user (API 2.8) and return it (`user.isAnonymous`), so
   *   the status is never "signed-out". Needs an app that shows anonymous users
   *   (`<AuthProvider allowAnonymous>`). However many components ask, one anonymous user is
   *   made; a later sign-up upgrades it to a real account with the same id.
   */
  or?: "return-null" | "redirect" | "throw" | "anonymous";
}

/** The user state without "signed-out": what `or: "redirect"`, "throw" and "anonymous" return. */
export type SignedInOrLoading = Exclude<UserState, { status: "signed-out" }>;

/**
 * Sends the browser to the sign-in page with the current page as where to come back
 * (`replace`: the protected page, which would only send the visitor away again, leaves the
 * history). The return-path rules load with the call, not with the first page. A restricted
 * user (API 2.8) the app does not show goes to the onboarding page instead, where they become a
 * user the page can have (as the 2.8 SDK's useUser does).
 */
export function redirectToSignInPage(controller: AuthController): void {
  const signIn = () => void import("../return-to.js").then((m) => location.replace(m.authPageUrl(controller.urls.signIn, location)));
  const session = controller.restrictedSession;
  session.getUser().then((user) => (user?.isRestricted ? session.redirectToOnboarding() : signIn()), signIn);
}

/** The signed-in user as a status union: loading, signed-out, or signed-in with `user`. */
export function useUser(options: UseUserOptions & { or: "redirect" | "throw" | "anonymous" }): SignedInOrLoading;
export function useUser(options?: UseUserOptions): UserState;
export function useUser(options?: UseUserOptions): UserState {
  const controller = useAuthController("useUser");
  const state = useUserState(controller);
  const or = options?.or;
  // Signed out, and the option says what to do instead: make an anonymous user (`error` when
  // that failed), leave for sign-in, or throw. Meanwhile the state is "loading".
  const instead = state.status === "signed-out" && or && or != "return-null";
  const [error, setError] = useState<unknown>();
  useEffect(() => {
    if (instead)
      or == "anonymous"
        ? controller.signUpAnonymously().then(() => setError(undefined), setError)
        : redirectToSignInPage(controller);
  }, [instead, or, controller]);
  // A plain Error, as Stack's SDK throws: the app's error boundary shows its own page.
  if (instead && or == "throw") throw Error('useUser({ or: "throw" }): nobody is signed in');
  return instead ? { status: "loading", user: null, error } : state;
}

const LOADING: CachedState<never> = { status: "loading", value: undefined, error: undefined };
const noSubscription = () => () => {};
const loadingSnapshot = () => LOADING;

/** A cached value (service-api C4) as a status union; `args` null = nothing to load (stays loading). */
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

/**
 * The signed-in user's project permissions (API 2.8; those outside any team), contained ones
 * included; [] when signed out. Cached like the team permissions: one load shared by every
 * component, loaded again when a component asks after the last one left (and with the session).
 */
export function useProjectPermissions(): CachedState<ProjectPermission[]> {
  return useCachedValue(useAuthController("useProjectPermissions").caches.projectPermissions, []);
}

/** Whether the user holds the project permission `permissionId`: null while loading (or on error). */
export function useProjectPermission(permissionId: string): boolean | null {
  const permissions = useProjectPermissions();
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

/**
 * The invitations the signed-in user received (API 2.8): pending invitations addressed to one of
 * their verified e-mail addresses, with each team's name; [] when signed out. Accept one with
 * `useAuth().teamInvitations.acceptById(id)` (the list and the user's teams load again). From a
 * 2.7 service the state is an error (NotInServiceVersion).
 */
export function useReceivedTeamInvitations(): CachedState<ReceivedTeamInvitation[]> {
  return useCachedValue(useAuthController("useReceivedTeamInvitations").caches.receivedTeamInvitations, []);
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
