// Test helpers for apps that use @authmw/react: "@authmw/react/testing".
import { useState, type ReactNode } from "react";
import type { AuthController, UserState } from "./client";
import type { CurrentUser } from "./models";
import { AuthContext } from "./react/context";
import { resolveUrls, type AuthUrlOverrides } from "./urls";
import { createStore } from "./vanilla";

/** A complete user with harmless defaults; pass the fields your test cares about. */
export function fakeUser(fields: Partial<CurrentUser> = {}): CurrentUser {
  return {
    id: "00000000-0000-4000-8000-000000000001",
    displayName: null,
    primaryEmail: "user@example.com",
    primaryEmailVerified: true,
    profileImageUrl: null,
    signedUpAt: new Date(0),
    clientMetadata: null,
    clientReadOnlyMetadata: null,
    hasPassword: true,
    emailAuthEnabled: true,
    otpAuthEnabled: false,
    passkeyAuthEnabled: false,
    isMultiFactorRequired: false,
    oauthProviders: [],
    selectedTeamId: null,
    selectedTeam: null,
    ...fields,
  };
}

export interface TestingControllerOptions {
  /** The signed-in user (missing fields come from fakeUser); null or omitted = signed out. */
  user?: Partial<CurrentUser> | null;
  /** Stay in the loading state (overrides `user`). */
  loading?: boolean;
  accessToken?: string;
  handlerPath?: string;
  urls?: AuthUrlOverrides;
}

/**
 * An AuthController without network or cookies. Sign-in / sign-up succeed with a fake user of
 * that e-mail, sign-out signs out, getAccessToken returns `accessToken` while signed in.
 */
export function createTestingController(options: TestingControllerOptions = {}): AuthController {
  const initial: UserState = options.loading
    ? { status: "loading", user: null }
    : options.user
      ? { status: "signed-in", user: fakeUser(options.user) }
      : { status: "signed-out", user: null };
  const store = createStore<{ value: UserState }>({ value: initial });
  const accessToken = options.accessToken ?? "test-access-token";
  const signIn = async (email: string) => {
    const user = fakeUser({ ...(options.user ?? {}), primaryEmail: email });
    store.setState({ value: { status: "signed-in", user } });
    return user;
  };
  const current = () => {
    const state = store.getState().value;
    if (state.status !== "signed-in") throw new Error("Not signed in (AuthProviderForTesting).");
    return state.user;
  };
  return {
    urls: resolveUrls(options.handlerPath, options.urls),
    getUserState: () => store.getState().value,
    subscribe: (listener) => store.subscribe(() => listener()),
    start: () => () => {},
    signInWithCredential: signIn,
    signUpWithCredential: signIn,
    signOut: async () => store.setState({ value: { status: "signed-out", user: null } }),
    getAccessToken: async () => (store.getState().value.status === "signed-in" ? accessToken : null),
    getAuthHeaders: async () => {
      const signedIn = store.getState().value.status === "signed-in";
      return {
        "x-stack-auth": JSON.stringify({
          accessToken: signedIn ? accessToken : null,
          refreshToken: signedIn ? "test-refresh-token" : null,
        }),
      };
    },
    getUser: async () => store.getState().value.user,
    updateUser: async (update) => {
      const user = { ...current(), ...update } as CurrentUser;
      store.setState({ value: { status: "signed-in", user } });
      return user;
    },
    deleteUser: async () => store.setState({ value: { status: "signed-out", user: null } }),
    verifyEmail: async () => {
      const state = store.getState().value;
      if (state.status === "signed-in") {
        store.setState({ value: { status: "signed-in", user: { ...state.user, primaryEmailVerified: true } } });
      }
    },
    getProject: async () => ({
      id: "test-project",
      displayName: "Test project",
      config: {
        signUpEnabled: true,
        credentialEnabled: true,
        magicLinkEnabled: false,
        passkeyEnabled: false,
        clientTeamCreationEnabled: false,
        clientUserDeletionEnabled: false,
        oauthProviders: [],
      },
    }),
  };
}

export interface AuthProviderForTestingProps extends TestingControllerOptions {
  children?: ReactNode;
}

/** Renders its children as if `user` were signed in (or signed out with `user={null}`). */
export function AuthProviderForTesting({ children, ...options }: AuthProviderForTestingProps) {
  const [controller] = useState(() => createTestingController(options));
  return <AuthContext.Provider value={controller}>{children}</AuthContext.Provider>;
}
