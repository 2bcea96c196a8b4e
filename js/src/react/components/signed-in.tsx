import type { ReactNode } from "react";
import type { UserState } from "../../controller.js";
import type { CurrentUser } from "../../models.js";
import { useProjectPermissions, useTeamPermissions, useTeams, useUser } from "../hooks.js";

export interface SignedInProps {
  children?: ReactNode;
  /** Shown while the session loads; nothing by default. */
  fallback?: ReactNode;
  /**
   * Also show the children to a guest (an anonymous user, in an app with allowAnonymous);
   * default false: a guest has no account yet, so for SignedIn they are not signed in.
   */
  includeAnonymous?: boolean;
}

export interface SignedOutProps {
  children?: ReactNode;
  /** Shown while the session loads; nothing by default. */
  fallback?: ReactNode;
  /**
   * Also show the children to a guest (an anonymous user, in an app with allowAnonymous);
   * default true: a guest has no account yet, so the way to sign up or in is for them too.
   * false: only for a visitor with no session at all.
   */
  includeAnonymous?: boolean;
}

/** Whether the user is a guest (an anonymous user the app shows, see allowAnonymous). */
const isGuest = (state: UserState) => state.status === "signed-in" && state.user.isAnonymous;

/** Renders its children only for a signed-in visitor (a guest too with `includeAnonymous`). */
export function SignedIn({ children, fallback = null, includeAnonymous = false }: SignedInProps) {
  const state = useUser();
  if (state.status === "loading") return <>{fallback}</>;
  return <>{state.status === "signed-in" && (includeAnonymous || !isGuest(state)) ? children : null}</>;
}

/** Renders its children only for a signed-out visitor, and a guest unless `includeAnonymous={false}`. */
export function SignedOut({ children, fallback = null, includeAnonymous = true }: SignedOutProps) {
  const state = useUser();
  if (state.status === "loading") return <>{fallback}</>;
  return <>{state.status === "signed-out" || (includeAnonymous && isGuest(state)) ? children : null}</>;
}

/**
 * Who may see a <Protect>'s children: a member of `teamId`; a holder of `permission` in
 * `teamId` (the user's selected team when left out); with `project`, a holder of the project
 * permission `permission` (API 2.8; no team involved); or a user for whom `condition` is true.
 */
export type ProtectRule =
  | { teamId: string; permission?: string; project?: never; condition?: never }
  | { permission: string; teamId?: string; project?: false; condition?: never }
  | { permission: string; project: true; teamId?: never; condition?: never }
  | { condition(user: CurrentUser): boolean; teamId?: never; permission?: never; project?: never };

export type ProtectProps = ProtectRule & {
  children?: ReactNode;
  /** Shown to everyone else (signed out included); nothing by default. */
  fallback?: ReactNode;
  /** Shown while the user, their teams or permissions load; nothing by default. */
  loading?: ReactNode;
};

/**
 * Renders its children only for the visitors its rule admits, `fallback` for the others. This
 * hides parts of a page; it protects nothing: the server must check the same rule on every
 * request (e.g. the Python middleware's guards).
 */
export function Protect(props: ProtectProps) {
  const state = useUser();
  const { children = null, fallback = null, loading = null } = props;
  if (state.status === "loading") return <>{loading}</>;
  if (state.status === "signed-out") return <>{fallback}</>;
  if (props.condition) return <>{props.condition(state.user) ? children : fallback}</>;
  if (props.project) return <ProjectPermissionGate permission={props.permission} {...{ children, fallback, loading }} />;
  const teamId = props.teamId ?? state.user.selectedTeamId;
  if (!teamId) return <>{fallback}</>;
  const show = { children, fallback, loading };
  return props.permission ? (
    <PermissionGate teamId={teamId} permission={props.permission} {...show} />
  ) : (
    <MembershipGate teamId={teamId} {...show} />
  );
}

interface Shown {
  children: ReactNode;
  fallback: ReactNode;
  loading: ReactNode;
}

function MembershipGate({ teamId, children, fallback, loading }: Shown & { teamId: string }) {
  const teams = useTeams();
  if (teams.status === "loading") return <>{loading}</>;
  return <>{teams.status === "ready" && teams.value.some((team) => team.id === teamId) ? children : fallback}</>;
}

function ProjectPermissionGate({ permission, children, fallback, loading }: Shown & { permission: string }) {
  const permissions = useProjectPermissions();
  if (permissions.status === "loading") return <>{loading}</>;
  return <>{permissions.status === "ready" && permissions.value.some((p) => p.id === permission) ? children : fallback}</>;
}

function PermissionGate({ teamId, permission, children, fallback, loading }: Shown & { teamId: string; permission: string }) {
  // The service refuses the permissions of a team the user is not in: an error shows the fallback.
  const permissions = useTeamPermissions(teamId);
  if (permissions.status === "loading") return <>{loading}</>;
  return <>{permissions.status === "ready" && permissions.value.some((p) => p.id === permission) ? children : fallback}</>;
}
