// AuthClient: the client tier over one transport and one session. It puts together the
// user-state machine (user-state.ts), the sign-in and account flows (flows.ts) and the
// namespaces (teams, contact channels, OAuth), as the AuthController the React layer uses
// (controller.ts, where each call is documented).
import type { ApiContext, AuthCaches } from "./api-context";
import { createAsyncCache } from "./cache";
import type { ContactChannelsApi } from "./contact-channels";
import { noteClientCreated } from "./created-clients";
import { FLOW_NAMES, type AuthApis, type AuthController, type AuthFlows, type UserState } from "./controller";
import type { CookieDocument, CookieFormat, CookieSameSite } from "./cookies";
import { isKnownError } from "./known-error";
import { projectFromWire, userFromWire, userUpdateToWire, type CurrentUser, type CurrentUserUpdate, type Project } from "./models";
import type { OAuthApi, SignInWithOAuthOptions } from "./oauth";
import type { TeamApiKeysApi, UserApiKeysApi } from "./project-api-keys";
import type { NotificationPreferencesApi } from "./notification-preferences";
import type { OAuthProviderAccountsApi } from "./provider-accounts";
import type { SessionsApi } from "./sessions";
import { createSessionStore, type GetAccessTokenOptions, type SessionStore } from "./store";
import { accessTokenKind, type UserKindOptions } from "./token-kind";
import type { TeamInvitationsApi, TeamMemberProfilesApi, TeamPermissionsApi, TeamsApi } from "./teams";
import { Transport, type SessionTokens, type TransportOptions } from "./transport";
import { resolveUrls, type AuthUrlOverrides, type AuthUrls } from "./urls";
import { UserStateMachine } from "./user-state";

export interface AuthClientOptions extends Omit<TransportOptions, "baseUrl">, UserKindOptions {
  /** API URL of the service (without /api/v1). */
  baseUrl: string;
  handlerPath?: string;
  urls?: AuthUrlOverrides;
  /** Cookie holder; `document` by default, null for memory-only sessions. */
  cookies?: CookieDocument | null;
  /** How the refresh cookie is written: "2.7" (default, read by every SDK) or "2.8" (structured). */
  cookieFormat?: CookieFormat;
  /** The cookies' SameSite attribute: "lax" (default), "strict", or "none" (https pages only). */
  cookieSameSite?: CookieSameSite;
  initialTokens?: Partial<SessionTokens>;
  /** How the browser is sent to the OAuth provider; window.location.assign by default. */
  assign?: (url: string) => void;
}

/** The methods of an API, by name (a record, so the compiler checks it against the API). */
type Methods<T> = Record<keyof T, true>;

/**
 * An API whose module is imported on its first call: an app's bundler splits it off the first
 * page, which then carries only what shows the user. Every method of these APIs returns a
 * promise; a module that fails to load (a network error) is tried again on the next call.
 */
function loadedOnFirstCall<T extends object>(methods: Methods<T>, load: () => Promise<T>): T {
  let api: Promise<T> | undefined;
  const loaded = () =>
    (api ??= load().catch((error: unknown) => {
      api = undefined;
      throw error;
    }));
  const calls: Record<string, (...args: unknown[]) => Promise<unknown>> = {};
  for (const name of Object.keys(methods)) {
    calls[name] = (...args) => loaded().then((module) => (module as typeof calls)[name]!(...args));
  }
  return calls as T;
}

const TEAMS: Methods<TeamsApi> = { list: true, get: true, create: true, update: true, delete: true, leave: true, removeMember: true };
const TEAM_MEMBER_PROFILES: Methods<TeamMemberProfilesApi> = { list: true, get: true, update: true };
const TEAM_PERMISSIONS: Methods<TeamPermissionsApi> = { list: true, has: true };
const TEAM_INVITATIONS: Methods<TeamInvitationsApi> = { send: true, list: true, revoke: true, checkCode: true, getDetails: true, accept: true };
const CONTACT_CHANNELS: Methods<ContactChannelsApi> = {
  list: true,
  get: true,
  create: true,
  update: true,
  delete: true,
  sendVerificationEmail: true,
};
const SESSIONS: Methods<SessionsApi> = { list: true, revoke: true };
const KEYS = { list: true, create: true, revoke: true } as const;
const USER_API_KEYS: Methods<UserApiKeysApi> = KEYS;
const TEAM_API_KEYS: Methods<TeamApiKeysApi> = KEYS;
const PROVIDER_ACCOUNTS: Methods<OAuthProviderAccountsApi> = { list: true, update: true, remove: true };
const NOTIFICATION_PREFERENCES: Methods<NotificationPreferencesApi> = { list: true, set: true };
const OAUTH: Methods<OAuthApi> = { signIn: true, link: true, handleCallback: true, getConnectedAccount: true };

// The flows and the namespaces of AuthController (controller.ts) become members of every
// AuthClient, put in place by the constructor, so each is declared once, there.
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export interface AuthClient extends AuthFlows, AuthApis {}

// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export class AuthClient implements AuthController {
  readonly urls: AuthUrls;
  readonly transport: Transport;
  readonly session: SessionStore;
  readonly caches: AuthCaches;
  private readonly user: UserStateMachine;

  constructor(options: AuthClientOptions) {
    noteClientCreated();
    this.urls = resolveUrls(options.handlerPath, options.urls);
    this.transport = new Transport(options);
    this.session = createSessionStore({
      userKinds: options,
      projectId: options.projectId,
      refresh: (refreshToken) => this.transport.refreshAccessToken(refreshToken),
      cookies: options.cookies,
      cookieFormat: options.cookieFormat,
      cookieSameSite: options.cookieSameSite,
      now: options.now,
      initialTokens: options.initialTokens,
    });
    this.user = new UserStateMachine(this.session, () => this.getUser());
    // The fetchers call the namespaces below, which in turn invalidate these caches.
    const caches: AuthCaches = {
      project: createAsyncCache(() => this.getProject()),
      teams: createAsyncCache(() => this.teams.list()),
      contactChannels: createAsyncCache(() => this.contactChannels.list()),
      teamPermissions: createAsyncCache((teamId: string) => this.teamPermissions.list(teamId)),
      teamMemberProfiles: createAsyncCache((teamId: string) => this.teamMemberProfiles.list(teamId)),
      teamInvitations: createAsyncCache((teamId: string) => this.teamInvitations.list(teamId)),
    };
    this.caches = caches;
    const ctx: ApiContext = {
      request: this.transport.request.bind(this.transport),
      session: this.session,
      urls: this.urls,
      caches,
      refreshUser: () => this.user.refresh(),
      storeSignIn: (tokens) => {
        this.session.setTokens(tokens);
        return this.reloadUser();
      },
    };
    // The namespaces and the flows load with their first call.
    const teams = () => import("./teams");
    const apis: AuthApis = {
      teams: loadedOnFirstCall(TEAMS, async () => (await teams()).createTeamsApi(ctx)),
      teamMemberProfiles: loadedOnFirstCall(TEAM_MEMBER_PROFILES, async () => (await teams()).createTeamMemberProfilesApi(ctx)),
      teamPermissions: loadedOnFirstCall(TEAM_PERMISSIONS, async () => (await teams()).createTeamPermissionsApi(ctx)),
      teamInvitations: loadedOnFirstCall(TEAM_INVITATIONS, async () => (await teams()).createTeamInvitationsApi(ctx)),
      contactChannels: loadedOnFirstCall(CONTACT_CHANNELS, async () => (await import("./contact-channels")).createContactChannelsApi(ctx)),
      sessions: loadedOnFirstCall(SESSIONS, async () => (await import("./sessions")).createSessionsApi(ctx)),
      apiKeys: loadedOnFirstCall(USER_API_KEYS, async () => (await import("./project-api-keys")).createUserApiKeysApi(ctx)),
      teamApiKeys: loadedOnFirstCall(TEAM_API_KEYS, async () => (await import("./project-api-keys")).createTeamApiKeysApi(ctx)),
      providerAccounts: loadedOnFirstCall(PROVIDER_ACCOUNTS, async () =>
        (await import("./provider-accounts")).createProviderAccountsApi(ctx),
      ),
      notificationPreferences: loadedOnFirstCall(NOTIFICATION_PREFERENCES, async () =>
        (await import("./notification-preferences")).createNotificationPreferencesApi(ctx),
      ),
      oauth: loadedOnFirstCall(OAUTH, async () =>
        (await import("./oauth")).createOAuthApi(ctx, {
          transport: this.transport,
          cookies: options.cookies === undefined ? (typeof document !== "undefined" ? document : null) : options.cookies,
          assign: options.assign,
          now: options.now,
        }),
      ),
    };
    const flows = loadedOnFirstCall(FLOW_NAMES, async () => (await import("./flows")).createFlows(ctx, this));
    Object.assign(this, apis, flows);
    // The kind of the session's latest access token: a new token of another kind (a restricted
    // user who verified the e-mail, an anonymous user who signed up) shows or hides the user.
    const kindOf = (token: string | null) => (token ? accessTokenKind(token, options.projectId) : null);
    let kind = kindOf(this.session.getState().accessToken);
    this.session.subscribe((state, previous) => {
      const was = kind;
      kind = kindOf(state.accessToken) ?? kind;
      if (state.refreshToken !== previous.refreshToken) {
        // Another session (or none): every cached value of the user is someone else's now.
        for (const [name, cache] of Object.entries(caches)) if (name !== "project") cache.clear();
        void this.reloadUser().catch(() => {});
      } else if (was && kind !== was) {
        void this.user.refresh().catch(() => {});
      }
    });
  }

  getUserState = (): UserState => this.user.getState();

  subscribe = (listener: () => void): (() => void) => this.user.subscribe(listener);

  start(): () => void {
    const stop = this.session.startPolling();
    if (this.getUserState().status === "loading") void this.reloadUser().catch(() => {});
    return stop;
  }

  /** Loads /users/me for the current session into the user state (one load per refresh token at a time). */
  reloadUser(): Promise<CurrentUser | null> {
    return this.user.reload();
  }

  getAccessToken(options?: GetAccessTokenOptions): Promise<string | null> {
    return this.session.getAccessToken(options);
  }

  /** Header that forwards this session to your own back end (contract 4.2); no tokens for a session not shown here. */
  async getAuthHeaders(): Promise<{ "x-stack-auth": string }> {
    const { accessToken, refreshToken } = await this.session.getTokens();
    return { "x-stack-auth": JSON.stringify({ accessToken, refreshToken }) };
  }

  /** Sends the browser to the provider's sign-in (spec 4, OAuth flow); `oauth` has the rest. */
  signInWithOAuth(provider: string, options?: SignInWithOAuthOptions): Promise<void> {
    return this.oauth.signIn(provider, options);
  }

  selectTeam(teamId: string | null): Promise<CurrentUser> {
    return this.updateUser({ selectedTeamId: teamId });
  }

  /** The signed-in user, or null without a session (CANNOT_GET_OWN_USER_WITHOUT_USER). */
  async getUser(): Promise<CurrentUser | null> {
    if (!this.session.getState().refreshToken) return null;
    // An anonymous or restricted session the app does not allow is "signed out": no call that
    // the service would refuse, nothing cleared (it may be the 2.8 SDK's), nothing retried.
    if (!(await this.session.getSessionAccess())?.allowed) return null;
    try {
      const { body } = await this.transport.request<Record<string, unknown>>({
        method: "GET",
        path: "/users/me",
        session: this.session,
      });
      return userFromWire(body);
    } catch (error) {
      if (isKnownError(error, "CANNOT_GET_OWN_USER_WITHOUT_USER")) return null;
      // The service refuses the kind of user (a token the kind check could not read).
      if (isKnownError(error, "ANONYMOUS_AUTHENTICATION_NOT_ALLOWED") || isKnownError(error, "RESTRICTED_USER_NOT_ALLOWED")) return null;
      throw error;
    }
  }

  async updateUser(update: CurrentUserUpdate): Promise<CurrentUser> {
    const { body } = await this.transport.request<Record<string, unknown>>({
      method: "PATCH",
      path: "/users/me",
      body: userUpdateToWire(update),
      session: this.session,
    });
    const user = userFromWire(body);
    this.user.show(user);
    return user;
  }

  /** Deletes the signed-in user (needs client user deletion enabled); the session becomes invalid. */
  async deleteUser(): Promise<void> {
    await this.transport.request({ method: "DELETE", path: "/users/me", session: this.session });
    this.session.clear();
  }

  /** The project's client view (GET /projects/current); cached in `caches.project`. */
  async getProject(): Promise<Project> {
    const { body } = await this.transport.request<Record<string, unknown>>({ method: "GET", path: "/projects/current" });
    return projectFromWire(body);
  }
}

export function createAuthClient(options: AuthClientOptions): AuthClient {
  return new AuthClient(options);
}
