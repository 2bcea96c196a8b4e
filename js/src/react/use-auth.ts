// useAuth: the user's state and every call of the auth controller. A module apart from the
// other hooks, so that an app that only shows the user (useUser) does not carry the calls'
// names or the return-to helpers in its first load.
import { useCallback, useMemo, useRef, useSyncExternalStore } from "react";
import { FLOW_NAMES, type AuthController, type AuthFlows, type AuthStatus, type UserState } from "../controller.js";
import type { CurrentUser } from "../models.js";
import type { OAuthApi } from "../oauth.js";
import { authPageUrl, leave } from "../return-to.js";
import { useAuthController } from "./context.js";
import { SERVER_SNAPSHOT } from "./hooks.js";

/**
 * What useAuth hands out of the members of AuthController beyond the flows (every flow is
 * handed out, under its name): true = as it is (a call bound to the controller), false = not
 * at all. Every member is named, so a call added to AuthController does not compile until it
 * is placed here.
 */
const HANDED_OUT = {
  urls: true,
  getAccessToken: true,
  getAuthHeaders: true,
  updateUser: true,
  deleteUser: true,
  getProject: true,
  selectTeam: true,
  teams: true,
  teamMemberProfiles: true,
  teamPermissions: true,
  teamInvitations: true,
  projectPermissions: true,
  contactChannels: true,
  oauth: true,
  sessions: true,
  apiKeys: true,
  teamApiKeys: true,
  providerAccounts: true,
  notificationPreferences: true,
  restrictedSession: true,
  // The user's state is useAuth's own `status` and `user`; the caches are read by the hooks below.
  getUserState: false,
  subscribe: false,
  start: false,
  getUser: false,
  caches: false,
  // The app's navigation, which <AuthProvider> sets; not an app's call.
  navigate: false,
} as const satisfies Record<Exclude<keyof AuthController, keyof AuthFlows>, boolean>;

type HandedOut = { [K in keyof typeof HANDED_OUT]: (typeof HANDED_OUT)[K] extends true ? K : never }[keyof typeof HANDED_OUT];

/**
 * What useAuth() returns: the user's state, the controller's calls (their documentation is on
 * AuthController) and a few shorter names. Derived from AuthController, so a call is declared
 * once, there.
 */
export type UseAuthResult = {
  status: AuthStatus;
  user: CurrentUser | null;
  /** AuthController.signInWithCredential */
  signIn: AuthController["signInWithCredential"];
  /** AuthController.signUpWithCredential */
  signUp: AuthController["signUpWithCredential"];
  /**
   * Goes to the sign-in page and comes back to the current page afterwards (a new history entry:
   * Back returns here); through the provider's `redirectMethod` navigation when the sign-in page
   * is on this origin.
   */
  redirectToSignIn(): void;
  /** Sends the browser to the provider's sign-in page; comes back to returnTo (relative) if given. */
  signInWithOAuth: OAuthApi["signIn"];
} & AuthFlows &
  Pick<AuthController, HandedOut>;

type Calls = Omit<UseAuthResult, "status" | "user">;

function callsOf(controller: AuthController): Calls {
  const calls: Record<string, unknown> = {};
  for (const [name, handed] of [...FLOW_NAMES.map((flow) => [flow, true] as const), ...Object.entries(HANDED_OUT)]) {
    const member = controller[name as keyof AuthController];
    if (handed) calls[name] = typeof member === "function" ? member.bind(controller) : member;
  }
  calls.signIn = calls.signInWithCredential;
  calls.signUp = calls.signUpWithCredential;
  calls.redirectToSignIn = () => leave(authPageUrl(controller.urls.signIn, location), controller.navigate, false);
  calls.signInWithOAuth = controller.oauth.signIn.bind(controller.oauth);
  return calls as Calls;
}

/**
 * The user's state and every call of the auth controller.
 *
 * With a selector, the component re-renders only when what it selects changes (compared with
 * `isEqual`, `Object.is` by default): `const status = useAuth((auth) => auth.status)`. Without
 * one it re-renders on every change of the user.
 */
export function useAuth<T>(select: (auth: UseAuthResult) => T, isEqual?: (a: T, b: T) => boolean): T;
export function useAuth(): UseAuthResult; // last, so ReturnType<typeof useAuth> is UseAuthResult
export function useAuth<T>(
  select?: (auth: UseAuthResult) => T,
  isEqual: (a: T, b: T) => boolean = Object.is,
): T | UseAuthResult {
  const controller = useAuthController("useAuth");
  const calls = useMemo(() => callsOf(controller), [controller]);
  // The last state seen, the result made of it, and what the selector picked from it: a new
  // snapshot only when the state changed and the selection differs.
  const last = useRef<{ state: UserState; result: UseAuthResult; select: unknown; picked: unknown } | null>(null);
  const snapshot = useCallback(
    (state: UserState): unknown => {
      const previous = last.current;
      if (previous !== null && previous.state === state && previous.select === select) return previous.picked;
      const result =
        previous !== null && previous.state === state
          ? previous.result
          : { ...calls, status: state.status, user: state.user };
      let picked: unknown = select ? select(result) : result;
      if (previous !== null && select && isEqual(previous.picked as T, picked as T)) picked = previous.picked;
      last.current = { state, result, select, picked };
      return picked;
    },
    [calls, select, isEqual],
  );
  return useSyncExternalStore(
    controller.subscribe,
    () => snapshot(controller.getUserState()),
    () => snapshot(SERVER_SNAPSHOT),
  ) as T | UseAuthResult;
}
