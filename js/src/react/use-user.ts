// useUser: the signed-in user as a status union, and what to do when nobody is signed in. The
// provider's first load carries this module, not the other hooks (hooks.ts re-exports it).
import { useEffect, useState, useSyncExternalStore } from "react";
import type { AuthController, UserState } from "../controller.js";
import { useAuthController } from "./context.js";

/** The user state a server renders (and hydration starts from). */
export const SERVER_SNAPSHOT: UserState = { status: "loading", user: null };
const serverSnapshot = () => SERVER_SNAPSHOT;

export function useUserState(controller: AuthController): UserState {
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
 * Sends the browser to the sign-in page and back afterwards, or a restricted user the app does
 * not show to the onboarding page: see leaveForSignIn, which loads with the call, not with the
 * first page.
 */
export function redirectToSignInPage(controller: AuthController): void {
  void import("../restricted-session.js").then((m) => m.leaveForSignIn(controller));
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
