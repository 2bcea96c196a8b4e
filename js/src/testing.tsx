// Test helpers for apps that use @authmw/react: "@authmw/react/testing".
import { useState, type ReactNode } from "react";
import type { AuthCaches } from "./api-context.js";
import { createAsyncCache } from "./cache.js";
import type { AuthController, AuthFlows, UserState } from "./controller.js";
import type { ContactChannelsApi } from "./contact-channels.js";
import type { ContactChannel, CurrentUser, Project, ProjectConfig, ReceivedTeamInvitation, Team, TeamInvitation, TeamMemberProfile } from "./models.js";
import { NEW_PROJECT_CONFIG } from "./new-project-config.js";
import type { NotificationPreference } from "./notification-preferences.js";
import type { OAuthProviderAccount } from "./provider-accounts.js";
import { AuthContext } from "./react/context.js";
import { RedirectMethodNavigation, type RedirectMethod } from "./react/redirect-method.js";
import type { ProjectPermissionsApi } from "./project-permissions.js";
import type { RestrictedUser } from "./restricted-session.js";
import type { TeamInvitationsApi, TeamMemberProfilesApi, TeamPermissionsApi, TeamsApi } from "./teams.js";
import type { NewProjectApiKey, ProjectApiKey, ProjectApiKeyCreate } from "./project-api-keys.js";
import { checkTotpSetupCode, createTotpSetup } from "./totp.js";
import { resolveUrls, type AuthUrlOverrides } from "./urls.js";
import { createStore } from "./vanilla.js";

let fakeIds = 0;
const fakeId = () => `00000000-0000-4000-8000-${String(++fakeIds).padStart(12, "0")}`;

/** A team with harmless defaults. */
export function fakeTeam(fields: Partial<Team> = {}): Team {
  return {
    id: fakeId(),
    displayName: "Team",
    profileImageUrl: null,
    clientMetadata: null,
    clientReadOnlyMetadata: null,
    ...fields,
  };
}

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
    isAnonymous: false,
    isRestricted: false,
    restrictedReason: null,
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
  /** The user's teams (missing fields from fakeTeam). */
  teams?: Partial<Team>[];
  /** Permission ids the user holds, per team id. */
  permissions?: Record<string, string[]>;
  /** Project permission ids the user holds (API 2.8). */
  projectPermissions?: string[];
  /** The user's contact channels; by default its primary e-mail. */
  contactChannels?: Partial<ContactChannel>[];
  /** Overrides of the project configuration (defaults: sign-up and passwords on, the rest off). */
  projectConfig?: Partial<ProjectConfig>;
  /**
   * A restricted user's session the app keeps aside (API 2.8; `user` is then ignored): signed
   * out for the app, read by the onboarding page. Default: e-mail not verified. Any code
   * verifies the e-mail and signs the user in; an added address becomes the primary e-mail.
   */
  restrictedUser?: Partial<RestrictedUser>;
}

/**
 * An AuthController without network or cookies. Sign-in / sign-up succeed with a fake user of
 * that e-mail, sign-out signs out, getAccessToken returns `accessToken` while signed in.
 */
export function createTestingController(options: TestingControllerOptions = {}): AuthController {
  let restricted: RestrictedUser | null = options.restrictedUser
    ? {
        ...fakeUser({ primaryEmailVerified: false, isRestricted: true, restrictedReason: { type: "email_not_verified" } }),
        restrictedByAdmin: false,
        restrictedByAdminReason: null,
        ...options.restrictedUser,
      }
    : null;
  const initial: UserState = options.loading
    ? { status: "loading", user: null }
    : options.user && !restricted
      ? { status: "signed-in", user: fakeUser(options.user) }
      : { status: "signed-out", user: null };
  const store = createStore<{ value: UserState }>({ value: initial });
  const accessToken = options.accessToken ?? "test-access-token";
  const current = () => {
    const state = store.getState().value;
    if (state.status !== "signed-in") throw new Error("Not signed in (AuthProviderForTesting).");
    return state.user;
  };
  const signedIn = () => store.getState().value.status === "signed-in";
  const setUser = (user: CurrentUser) => {
    store.setState({ value: { status: "signed-in", user } });
    return user;
  };
  const signIn = async (email = options.user?.primaryEmail ?? "user@example.com") =>
    setUser(fakeUser({ ...(options.user ?? {}), primaryEmail: email }));
  const signOut = async () => store.setState({ value: { status: "signed-out", user: null } });

  // In-memory API keys, by owner (a user's id or a team's).
  const keyStore = new Map<string, ProjectApiKey[]>();
  const keys = {
    list: (owner: string) => [...(keyStore.get(owner) ?? [])].reverse(),
    create: (type: "user" | "team", owner: string, data: ProjectApiKeyCreate): NewProjectApiKey => {
      const value = `sk_${fakeId().replace(/-/g, "")}`;
      const key = { id: fakeId(), type, ownerId: owner, description: data.description, createdAt: new Date(), expiresAt: data.expiresAt ?? null, revokedAt: null, isPublic: false, lastFour: value.slice(-4) };
      keyStore.set(owner, [...(keyStore.get(owner) ?? []), key]);
      return { ...key, value };
    },
    revoke: (owner: string, keyId: string): ProjectApiKey => {
      const list = keyStore.get(owner) ?? [];
      const key = list.find((k) => k.id === keyId);
      if (!key) throw new Error(`No API key ${keyId} (AuthProviderForTesting).`);
      key.revokedAt ??= new Date();
      return key;
    },
  };

  // In-memory data behind the teams and contact-channel calls.
  let teams: Team[] = (options.teams ?? []).map((t) => fakeTeam(t));
  const permissions: Record<string, string[]> = { ...options.permissions };
  const projectPermissionIds = [...(options.projectPermissions ?? [])];
  let channels: ContactChannel[] = (
    options.contactChannels ??
    (initial.user?.primaryEmail ? [{ value: initial.user.primaryEmail, isPrimary: true, usedForAuth: true, isVerified: initial.user.primaryEmailVerified }] : [])
  ).map((c) => ({ id: fakeId(), value: "", type: "email", isVerified: false, isPrimary: false, usedForAuth: false, ...c }));
  const project: Project = {
    id: "test-project",
    displayName: "Test project",
    config: { ...NEW_PROJECT_CONFIG, ...options.projectConfig },
  };
  const profile = (teamId: string): TeamMemberProfile => ({
    teamId,
    userId: current().id,
    displayName: current().displayName,
    profileImageUrl: current().profileImageUrl,
  });
  const findTeam = (teamId: string) => {
    const team = teams.find((t) => t.id === teamId);
    if (!team) throw new Error(`No team ${teamId} (AuthProviderForTesting).`);
    return team;
  };
  const caches: AuthCaches = {
    project: createAsyncCache(async () => project),
    teams: createAsyncCache(async () => (signedIn() ? teams : [])),
    contactChannels: createAsyncCache(async () => (signedIn() ? channels : [])),
    teamPermissions: createAsyncCache(async (teamId: string) => (permissions[teamId] ?? []).map((id) => ({ id }))),
    teamMemberProfiles: createAsyncCache(async (teamId: string) => [profile(teamId)]),
    teamInvitations: createAsyncCache(async (_teamId: string): Promise<TeamInvitation[]> => []),
    receivedTeamInvitations: createAsyncCache(async (): Promise<ReceivedTeamInvitation[]> => []),
    projectPermissions: createAsyncCache(async () => projectPermissionIds.map((id) => ({ id }))),
  };
  const teamsApi: TeamsApi = {
    list: async () => (signedIn() ? teams : []),
    get: async (teamId) => teams.find((t) => t.id === teamId) ?? null,
    async create(data) {
      const team = fakeTeam({ displayName: data.displayName, profileImageUrl: data.profileImageUrl ?? null, clientMetadata: data.clientMetadata ?? null });
      teams = [...teams, team];
      caches.teams.invalidate();
      return team;
    },
    async update(teamId, data) {
      const team = { ...findTeam(teamId), ...data } as Team;
      teams = teams.map((t) => (t.id === teamId ? team : t));
      caches.teams.invalidate();
      return team;
    },
    async delete(teamId) {
      teams = teams.filter((t) => t.id !== teamId);
      caches.teams.invalidate();
    },
    async leave(teamId) {
      teams = teams.filter((t) => t.id !== teamId);
      caches.teams.invalidate();
    },
    removeMember: async () => {},
  };
  const teamMemberProfilesApi: TeamMemberProfilesApi = {
    list: async (teamId) => [profile(teamId)],
    get: async (teamId) => profile(teamId),
    update: async (teamId, update) => ({ ...profile(teamId), ...update }),
  };
  const teamPermissionsApi: TeamPermissionsApi = {
    list: async (teamId) => (permissions[teamId] ?? []).map((id) => ({ id })),
    has: async (teamId, permissionId) => (permissions[teamId] ?? []).includes(permissionId),
  };
  const projectPermissionsApi: ProjectPermissionsApi = {
    list: async () => projectPermissionIds.map((id) => ({ id })),
    has: async (permissionId) => projectPermissionIds.includes(permissionId),
  };
  const teamInvitationsApi: TeamInvitationsApi = {
    send: async () => ({ id: fakeId() }),
    list: async () => [],
    revoke: async () => {},
    checkCode: async () => {},
    getDetails: async () => ({ teamId: teams[0]?.id ?? fakeId(), teamDisplayName: teams[0]?.displayName ?? "Team" }),
    accept: async () => {},
    listReceived: async () => [],
    acceptById: async () => {},
  };
  const contactChannelsApi: ContactChannelsApi = {
    list: async () => (signedIn() ? channels : []),
    get: async (channelId) => channels.find((c) => c.id === channelId) ?? null,
    async create(data) {
      const channel: ContactChannel = { id: fakeId(), type: "email", isVerified: false, isPrimary: false, ...data };
      channels = [...channels, channel];
      caches.contactChannels.invalidate();
      return channel;
    },
    async update(channelId, data) {
      channels = channels.map((c) => (c.id === channelId ? { ...c, ...data } : c));
      caches.contactChannels.invalidate();
      return channels.find((c) => c.id === channelId)!;
    },
    async delete(channelId) {
      channels = channels.filter((c) => c.id !== channelId);
      caches.contactChannels.invalidate();
    },
    sendVerificationEmail: async () => {},
  };
  const signInResult = async () => ({ user: await signIn(), isNewUser: false });
  // The flows of AuthFlows (controller.ts), each as the fake does it.
  const flows: AuthFlows = {
    signInWithCredential: (email) => signIn(email),
    signUpWithCredential: (email) => signIn(email),
    signUpAnonymously: async () =>
      signedIn() ? current() : setUser(fakeUser({ primaryEmail: null, displayName: null, isAnonymous: true, isRestricted: true })),
    signOut,
    verifyEmail: async () => {
      const state = store.getState().value;
      if (state.status === "signed-in") {
        store.setState({ value: { status: "signed-in", user: { ...state.user, primaryEmailVerified: true } } });
      }
    },
    sendMagicLinkEmail: async () => ({ nonce: "n".repeat(39) }),
    signInWithMagicLink: signInResult,
    signInWithMfa: signInResult,
    sendForgotPasswordEmail: async () => {},
    verifyPasswordResetCode: async () => {},
    resetPassword: async () => {},
    updatePassword: async () => {},
    setPassword: async () => void setUser({ ...current(), hasPassword: true }),
    sendVerificationEmail: async () => {},
    signInWithPasskey: signInResult,
    registerPasskey: async () => setUser({ ...current(), passkeyAuthEnabled: true }),
    removePasskey: async () => setUser({ ...current(), passkeyAuthEnabled: false }),
    createTotpSetup: async () => createTotpSetup(project.displayName, current().primaryEmail ?? current().id),
    enableTotp: async (setup, code) => {
      await checkTotpSetupCode(setup, code);
      return setUser({ ...current(), isMultiFactorRequired: true });
    },
    disableTotp: async () => setUser({ ...current(), isMultiFactorRequired: false }),
    checkCliLogin: async () => {},
    confirmCliLogin: async () => void current(),
  };
  const providerFlags = new Map<string, { allowSignIn: boolean; allowConnectedAccounts: boolean }>();
  const providerAccount = (link: CurrentUser["oauthProviders"][number]): OAuthProviderAccount => ({
    id: link.id,
    providerConfigId: link.id,
    type: link.id,
    email: link.email ?? null,
    accountId: link.accountId ?? null,
    ...(providerFlags.get(link.id) ?? { allowSignIn: true, allowConnectedAccounts: true }),
  });
  const notificationPreferences: NotificationPreference[] = [
    { categoryId: "7bb82d33-2f54-4a3d-9d23-82739e0d66ef", categoryName: "Transactional", enabled: true, canDisable: false },
    { categoryId: "4f6f8873-3d04-46bd-8bef-18338b1a1b4c", categoryName: "Marketing", enabled: true, canDisable: true },
  ];
  return {
    ...flows,
    urls: resolveUrls(options.handlerPath, options.urls),
    getUserState: () => store.getState().value,
    subscribe: (listener) => store.subscribe(() => listener()),
    start: () => () => {},
    getAccessToken: async () => (signedIn() ? accessToken : null),
    getAuthHeaders: async () => ({
      "x-stack-auth": JSON.stringify({
        accessToken: signedIn() ? accessToken : null,
        refreshToken: signedIn() ? "test-refresh-token" : null,
      }),
    }),
    getUser: async () => store.getState().value.user,
    updateUser: async (update) => setUser({ ...current(), ...update } as CurrentUser),
    deleteUser: signOut,
    getProject: async () => project,
    selectTeam: async (teamId) =>
      setUser({ ...current(), selectedTeamId: teamId, selectedTeam: teamId ? findTeam(teamId) : null }),
    teams: teamsApi,
    teamMemberProfiles: teamMemberProfilesApi,
    teamPermissions: teamPermissionsApi,
    teamInvitations: teamInvitationsApi,
    projectPermissions: projectPermissionsApi,
    contactChannels: contactChannelsApi,
    oauth: {
      // No provider to visit: signing in with OAuth signs the fake user in at once.
      signIn: async () => void (await signIn()),
      link: async (provider) => {
        const user = current();
        if (!user.oauthProviders.some((p) => p.id === provider)) {
          setUser({ ...user, oauthProviders: [...user.oauthProviders, { id: provider, accountId: fakeId(), email: user.primaryEmail }] });
        }
      },
      handleCallback: async () => ({ status: "not-for-us" }),
      getConnectedAccount: async (provider) =>
        signedIn() && current().oauthProviders.some((p) => p.id === provider)
          ? { provider, accessToken: `test-${provider}-token` }
          : null,
    },
    // One session, this browser's, which cannot be revoked from here.
    sessions: {
      list: async () => {
        if (!signedIn()) return [];
        const now = new Date();
        return [{ id: "00000000-0000-4000-8000-000000000001", createdAt: now, lastUsedAt: now, isCurrent: true, isImpersonation: false, location: null }];
      },
      revoke: async () => {},
    },
    apiKeys: {
      list: async () => (signedIn() ? keys.list(current().id) : []),
      create: async (data) => keys.create("user", current().id, data),
      revoke: async (keyId) => keys.revoke(current().id, keyId),
    },
    teamApiKeys: {
      list: async (teamId) => keys.list(teamId),
      create: async (teamId, data) => keys.create("team", teamId, data),
      revoke: async (teamId, keyId) => keys.revoke(teamId, keyId),
    },
    // The user's oauthProviders as provider accounts (the link id is the provider id here); the
    // flags are kept in memory.
    providerAccounts: {
      list: async () => (signedIn() ? current().oauthProviders.map(providerAccount) : []),
      update: async (id, update) => {
        const flags = providerFlags.get(id) ?? { allowSignIn: true, allowConnectedAccounts: true };
        providerFlags.set(id, { ...flags, ...update });
        const link = current().oauthProviders.find((p) => p.id === id);
        if (!link) throw new Error(`No provider account ${id}`);
        return providerAccount(link);
      },
      remove: async (id) => {
        const user = current();
        setUser({ ...user, oauthProviders: user.oauthProviders.filter((p) => p.id !== id) });
      },
    },
    // The two categories of the service, both on at first.
    notificationPreferences: {
      list: async () => (signedIn() ? notificationPreferences.map((p) => ({ ...p })) : []),
      set: async (categoryId, enabled) => {
        const preference = notificationPreferences.find((p) => p.categoryId === categoryId);
        if (!preference) throw new Error(`No notification category ${categoryId}`);
        preference.enabled = enabled || !preference.canDisable;
        return { ...preference };
      },
    },
    restrictedSession: {
      getUser: async () => restricted,
      redirectToOnboarding: async () => {},
      signOut: async () => {
        restricted = null;
      },
      sendVerificationEmail: async () => {},
      // The address becomes the unverified primary e-mail (verifyEmail then verifies it).
      addEmail: async (email) => {
        if (restricted) restricted = { ...restricted, primaryEmail: email.trim(), primaryEmailVerified: false };
        return restricted;
      },
      verifyEmail: async () => {
        if (restricted?.restrictedReason?.type === "email_not_verified") {
          restricted = { ...restricted, primaryEmailVerified: true, isRestricted: false, restrictedReason: null };
          setUser(fakeUser(restricted));
        }
        return restricted;
      },
    },
    caches,
  };
}

export interface AuthProviderForTestingProps extends TestingControllerOptions {
  /** How the pages and redirects leave (AuthProviderProps); "router" (default here) stays inside the test's router. */
  redirectMethod?: RedirectMethod;
  children?: ReactNode;
}

/** Renders its children as if `user` were signed in (or signed out with `user={null}`). */
export function AuthProviderForTesting({ children, redirectMethod = "router", ...options }: AuthProviderForTestingProps) {
  const [controller] = useState(() => createTestingController(options));
  return (
    <AuthContext.Provider value={controller}>
      <RedirectMethodNavigation controller={controller} method={redirectMethod} />
      {children}
    </AuthContext.Provider>
  );
}
