// AuthClient: the client tier over one transport and one session. It puts together the
// user-state machine (user-state.ts), the sign-in and account flows (flows.ts) and the
// namespaces (teams, contact channels, OAuth), as the AuthController the React layer uses
// (controller.ts, where each call is documented).
import type { ApiContext, AuthCaches } from "./api-context.js";
import { createAsyncCache } from "./cache.js";
import { noteClientCreated } from "./created-clients.js";
import { FLOW_NAMES, type AuthApis, type AuthController, type AuthFlows, type UserState } from "./controller.js";
import type { CookieDocument, CookieFormat, CookieSameSite } from "./cookies.js";
import { isKnownError } from "./known-error.js";
import { userFromWire, type CurrentUser, type CurrentUserUpdate, type Project } from "./models.js";
import type { SignInWithOAuthOptions } from "./oauth.js";
import type { Navigate } from "./return-to.js";
import { createSessionStore, type GetAccessTokenOptions, type SessionStore } from "./store.js";
import { accessTokenKind, type UserKindOptions } from "./token-kind.js";
import { Transport, type SessionTokens, type TransportOptions } from "./transport.js";
import { resolveUrls, type AuthUrlOverrides, type AuthUrls } from "./urls.js";
import { UserStateMachine } from "./user-state.js";

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
  /**
   * What a restricted user (API 2.8) meets when `allowRestricted` is off: "signed-out" (the
   * default here) counts them as not signed in; "onboarding" (<AuthProvider>'s default) also
   * sends them from any page outside the handler to urls.onboarding and back afterwards.
   */
  restrictedUsers?: "onboarding" | "signed-out";
}

/** The project's view and the user update's fields: loaded with the first call that needs them. */
const onDemand = () => import("./models-on-demand.js");

/**
 * An API whose module is imported on its first call: an app's bundler splits it off the first
 * page, which then carries only what shows the user. Every method of these APIs returns a
 * promise; a module that fails to load (a network error) is tried again on the next call.
 */
function loadedOnFirstCall<T extends object>(load: () => Promise<T>): T {
  let api: Promise<T> | undefined;
  const loaded = () =>
    (api ??= load().catch((error: unknown) => {
      api = undefined;
      throw error;
    }));
  // Each method is made on its first use, so no list of names ships in the first load. What an
  // object has anyway (toString, ...), symbols, `then` (the API is not a promise) and `toJSON`
  // are not methods of the API.
  const calls: Record<string, (...args: unknown[]) => Promise<unknown>> = {};
  return new Proxy(calls, {
    get: (target, name) =>
      name in target || typeof name != "string" || name == "then" || name == "toJSON"
        ? Reflect.get(target, name)
        : (target[name] = (...args) =>
            loaded().then((module) => {
              const method = (module as typeof calls)[name];
              if (typeof method != "function") throw new TypeError(`${name} is not a method of this API`);
              return method.apply(module, args);
            })),
  }) as T;
}

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
  private readonly onboard: boolean;
  navigate?: Navigate;

  constructor(options: AuthClientOptions) {
    noteClientCreated();
    this.urls = resolveUrls(options.handlerPath, options.urls);
    this.onboard = options.restrictedUsers == "onboarding";
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
      receivedTeamInvitations: createAsyncCache(() => this.teamInvitations.listReceived()),
      projectPermissions: createAsyncCache(() => this.projectPermissions.list()),
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
    const teams = () => import("./teams.js");
    const apis: AuthApis = {
      teams: loadedOnFirstCall(async () => (await teams()).createTeamsApi(ctx)),
      teamMemberProfiles: loadedOnFirstCall(async () => (await teams()).createTeamMemberProfilesApi(ctx)),
      teamPermissions: loadedOnFirstCall(async () => (await teams()).createTeamPermissionsApi(ctx)),
      teamInvitations: loadedOnFirstCall(async () => (await teams()).createTeamInvitationsApi(ctx)),
      projectPermissions: loadedOnFirstCall(async () =>
        (await import("./project-permissions.js")).createProjectPermissionsApi(ctx),
      ),
      contactChannels: loadedOnFirstCall(async () => (await import("./contact-channels.js")).createContactChannelsApi(ctx)),
      sessions: loadedOnFirstCall(async () => (await import("./sessions.js")).createSessionsApi(ctx)),
      apiKeys: loadedOnFirstCall(async () => (await import("./project-api-keys.js")).createUserApiKeysApi(ctx)),
      teamApiKeys: loadedOnFirstCall(async () => (await import("./project-api-keys.js")).createTeamApiKeysApi(ctx)),
      providerAccounts: loadedOnFirstCall(async () =>
        (await import("./provider-accounts.js")).createProviderAccountsApi(ctx),
      ),
      notificationPreferences: loadedOnFirstCall(async () =>
        (await import("./notification-preferences.js")).createNotificationPreferencesApi(ctx),
      ),
      restrictedSession: loadedOnFirstCall(async () => (await import("./restricted-session.js")).createRestrictedSessionApi(ctx)),
      oauth: loadedOnFirstCall(async () =>
        (await import("./oauth.js")).createOAuthApi(ctx, {
          transport: this.transport,
          cookies: options.cookies === undefined ? (typeof document !== "undefined" ? document : null) : options.cookies,
          assign: options.assign,
          now: options.now,
        }),
      ),
    };
    const flows = loadedOnFirstCall(async () => (await import("./flows.js")).createFlows(ctx, this));
    Object.assign(this, apis);
    // Every flow is a member of the client itself (useAuth hands them out by FLOW_NAMES).
    for (const name of FLOW_NAMES) Object.assign(this, { [name]: flows[name] });
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

  /** Header that forwards this session to your own back end (service-api A4.2); no tokens for a session not shown here. */
  async getAuthHeaders(): Promise<{ "x-stack-auth": string }> {
    const { accessToken, refreshToken } = await this.session.getTokens();
    return { "x-stack-auth": JSON.stringify({ accessToken, refreshToken }) };
  }

  /** Sends the browser to the provider's sign-in (service-api C4, OAuth flow); `oauth` has the rest. */
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
    const access = await this.session.getSessionAccess();
    if (!access?.allowed) {
      if (access?.kind == "restricted" && this.onboard) void this.restrictedSession.redirectToOnboarding(this.navigate).catch(() => {});
      return null;
    }
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
    const session = this.session.getState().refreshToken;
    const { body } = await this.transport.request<Record<string, unknown>>({
      method: "PATCH",
      path: "/users/me",
      body: (await onDemand()).userUpdateToWire(update),
      session: this.session,
    });
    const user = userFromWire(body);
    this.user.show(user, session);
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
    return (await onDemand()).projectFromWire(body);
  }
}

export function createAuthClient(options: AuthClientOptions): AuthClient {
  return new AuthClient(options);
}
