import { useCallback, useEffect, useMemo, useState, useSyncExternalStore } from "react";
import type { AsyncCache, CachedState } from "../cache.js";
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

// useUser and the user state: a module of their own, so that an app's first load (the provider
// and useUser) carries none of the hooks below.
import { useUserState } from "./use-user.js";
export { redirectToSignInPage, SERVER_SNAPSHOT, useUser, useUserState } from "./use-user.js";
export type { SignedInOrLoading, UseUserOptions } from "./use-user.js";

const LOADING: CachedState<never> = { status: "loading", value: undefined, error: undefined };
const noSubscription = () => () => {};
const loadingSnapshot = () => LOADING;

/** A cached value (service-api C4) as a status union; `args` null = nothing to load (stays loading). */
export function useCachedValue<A extends readonly unknown[], V>(cache: AsyncCache<A, V>, args: A | null): CachedState<V> {
  const key = args === null ? null : JSON.stringify(args); // args are compared by value
  // eslint-disable-next-line react-hooks/exhaustive-deps -- args by value: key stands for them
  const subscribe = useCallback((listener: () => void) => cache.subscribe(args!, listener), [cache, key]);
  // eslint-disable-next-line react-hooks/exhaustive-deps -- args by value: key stands for them
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
