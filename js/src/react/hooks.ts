import { useMemo, useSyncExternalStore } from "react";
import type { AuthController, AuthStatus, SignUpOptions, UserState } from "../client";
import type { CurrentUser, CurrentUserUpdate, Project } from "../models";
import type { GetAccessTokenOptions } from "../store";
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
    }),
    [controller, state],
  );
}
