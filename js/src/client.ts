// Client-tier calls over one transport and one session, plus the signed-in user as observable state.
import type { CookieDocument } from "./cookies";
import { CannotGetOwnUserWithoutUser, RefreshTokenError } from "./errors";
import {
  projectFromWire,
  userFromWire,
  userUpdateToWire,
  type CurrentUser,
  type CurrentUserUpdate,
  type Project,
} from "./models";
import { createSessionStore, type GetAccessTokenOptions, type SessionStore } from "./store";
import { Transport, type SessionTokens, type TokenProvider, type TransportOptions } from "./transport";
import { absoluteUrl, resolveUrls, withReturnTo, type AuthUrlOverrides, type AuthUrls } from "./urls";
import { createStore, type StoreApi } from "./vanilla";

export type UserState =
  | { status: "loading"; user: null; /** Last failure to load the user, if any. */ error?: unknown }
  | { status: "signed-out"; user: null }
  | { status: "signed-in"; user: CurrentUser };

export type AuthStatus = UserState["status"];

export interface SignUpOptions {
  /** Absolute URL put into the verification e-mail; default {handler}/email-verification on this origin. */
  verificationCallbackUrl?: string;
  /** Kept on the verification link so the user comes back to it. */
  afterAuthReturnTo?: string | null;
}

/** What the React layer needs; implemented by AuthClient and by the testing fake. */
export interface AuthController {
  readonly urls: AuthUrls;
  getUserState(): UserState;
  subscribe(listener: () => void): () => void;
  /** Starts cookie polling and the first user load; returns the matching stop function. */
  start(): () => void;
  signInWithCredential(email: string, password: string): Promise<CurrentUser | null>;
  signUpWithCredential(email: string, password: string, options?: SignUpOptions): Promise<CurrentUser | null>;
  signOut(): Promise<void>;
  getAccessToken(options?: GetAccessTokenOptions): Promise<string | null>;
  getAuthHeaders(): Promise<{ "x-stack-auth": string }>;
  getUser(): Promise<CurrentUser | null>;
  updateUser(update: CurrentUserUpdate): Promise<CurrentUser>;
  deleteUser(): Promise<void>;
  getProject(): Promise<Project>;
  /** Consumes an e-mail verification code (from the link of the verification e-mail). */
  verifyEmail(code: string): Promise<void>;
}

export interface AuthClientOptions extends Omit<TransportOptions, "baseUrl"> {
  /** API URL of the service (without /api/v1). */
  baseUrl: string;
  handlerPath?: string;
  urls?: AuthUrlOverrides;
  /** Cookie holder; `document` by default, null for memory-only sessions. */
  cookies?: CookieDocument | null;
  initialTokens?: Partial<SessionTokens>;
}

interface SignInResponse {
  access_token: string;
  refresh_token: string;
  user_id: string;
}

export class AuthClient implements AuthController {
  readonly urls: AuthUrls;
  readonly transport: Transport;
  readonly session: SessionStore;
  readonly userStore: StoreApi<{ value: UserState }>;
  private userLoad: { refreshToken: string; promise: Promise<CurrentUser | null> } | null = null;
  /** Refresh token of the session whose user the user state shows. */
  private shownSession: string | null = null;

  constructor(options: AuthClientOptions) {
    this.urls = resolveUrls(options.handlerPath, options.urls);
    this.transport = new Transport(options);
    this.session = createSessionStore({
      projectId: options.projectId,
      refresh: (refreshToken) => this.transport.refreshAccessToken(refreshToken),
      cookies: options.cookies,
      now: options.now,
      initialTokens: options.initialTokens,
    });
    const initial: UserState = this.session.getState().refreshToken
      ? { status: "loading", user: null }
      : { status: "signed-out", user: null };
    this.userStore = createStore<{ value: UserState }>({ value: initial });
    this.session.subscribe((state, previous) => {
      if (state.refreshToken !== previous.refreshToken) void this.reloadUser().catch(() => {});
    });
  }

  getUserState = (): UserState => this.userStore.getState().value;

  subscribe = (listener: () => void): (() => void) => this.userStore.subscribe(() => listener());

  start(): () => void {
    const stop = this.session.startPolling();
    if (this.getUserState().status === "loading") void this.reloadUser().catch(() => {});
    return stop;
  }

  private setUserState(value: UserState) {
    this.userStore.setState({ value });
  }

  /** Loads /users/me for the current session into the user state (one load per refresh token at a time). */
  reloadUser(): Promise<CurrentUser | null> {
    const { refreshToken } = this.session.getState();
    if (!refreshToken) {
      this.userLoad = null;
      this.shownSession = null;
      this.setUserState({ status: "signed-out", user: null });
      return Promise.resolve(null);
    }
    if (this.userLoad?.refreshToken === refreshToken) return this.userLoad.promise;
    // Reloading the same session keeps showing its user; another session starts from "loading".
    if (this.shownSession !== refreshToken && this.getUserState().status !== "loading") {
      this.setUserState({ status: "loading", user: null });
    }
    const load = {
      refreshToken,
      promise: this.getUser().then(
        (user) => {
          if (this.userLoad === load) {
            this.userLoad = null;
            this.shownSession = user ? refreshToken : null;
            this.setUserState(user ? { status: "signed-in", user } : { status: "signed-out", user: null });
          }
          return user;
        },
        (error: unknown) => {
          if (this.userLoad === load) {
            this.userLoad = null;
            // A failed reload of the shown session keeps its user; otherwise stay loading, with the error.
            if (this.shownSession !== refreshToken) this.setUserState({ status: "loading", user: null, error });
          }
          throw error;
        },
      ),
    };
    this.userLoad = load;
    return load.promise;
  }

  getAccessToken(options?: GetAccessTokenOptions): Promise<string | null> {
    return this.session.getAccessToken(options);
  }

  /** Header that forwards this session to your own back end (contract 4.2). */
  async getAuthHeaders(): Promise<{ "x-stack-auth": string }> {
    const accessToken = await this.session.getAccessToken();
    const { refreshToken } = this.session.getState();
    return { "x-stack-auth": JSON.stringify({ accessToken, refreshToken }) };
  }

  async signInWithCredential(email: string, password: string): Promise<CurrentUser | null> {
    const { body } = await this.transport.request<SignInResponse>({
      method: "POST",
      path: "/auth/password/sign-in",
      body: { email, password },
    });
    return this.storeSignIn(body);
  }

  async signUpWithCredential(email: string, password: string, options: SignUpOptions = {}): Promise<CurrentUser | null> {
    const callback =
      options.verificationCallbackUrl ??
      absoluteUrl(withReturnTo(this.urls.emailVerification, options.afterAuthReturnTo ?? null));
    const { body } = await this.transport.request<SignInResponse>({
      method: "POST",
      path: "/auth/password/sign-up",
      body: { email, password, verification_callback_url: callback },
    });
    return this.storeSignIn(body);
  }

  private storeSignIn(body: SignInResponse): Promise<CurrentUser | null> {
    this.session.setTokens({ refreshToken: body.refresh_token, accessToken: body.access_token });
    return this.reloadUser();
  }

  /** Ends the session on the service (a refresh-token error is ignored) and always forgets the tokens. */
  async signOut(): Promise<void> {
    const { refreshToken } = this.session.getState();
    try {
      if (refreshToken) {
        // Only the refresh token is needed; the access token is sent when it is still valid.
        const tokens: TokenProvider = {
          getTokens: async () => ({ refreshToken, accessToken: this.session.getState().accessToken }),
          markAccessTokenExpired: (token) => this.session.markAccessTokenExpired(token),
        };
        await this.transport.request({ method: "DELETE", path: "/auth/sessions/current", body: {}, session: tokens });
      }
    } catch (error) {
      if (!(error instanceof RefreshTokenError)) throw error;
    } finally {
      this.session.clear();
    }
  }

  /** The signed-in user, or null without a session (CANNOT_GET_OWN_USER_WITHOUT_USER). */
  async getUser(): Promise<CurrentUser | null> {
    if (!this.session.getState().refreshToken) return null;
    try {
      const { body } = await this.transport.request<Record<string, unknown>>({
        method: "GET",
        path: "/users/me",
        session: this.session,
      });
      return userFromWire(body);
    } catch (error) {
      if (error instanceof CannotGetOwnUserWithoutUser) return null;
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
    this.shownSession = this.session.getState().refreshToken;
    this.setUserState({ status: "signed-in", user });
    return user;
  }

  /** Deletes the signed-in user (needs client user deletion enabled); the session becomes invalid. */
  async deleteUser(): Promise<void> {
    await this.transport.request({ method: "DELETE", path: "/users/me", session: this.session });
    this.session.clear();
  }

  async verifyEmail(code: string): Promise<void> {
    await this.transport.request({ method: "POST", path: "/contact-channels/verify", body: { code } });
    if (this.getUserState().status === "signed-in") {
      this.userLoad = null;
      await this.reloadUser().catch(() => {});
    }
  }

  async getProject(): Promise<Project> {
    const { body } = await this.transport.request<Record<string, unknown>>({ method: "GET", path: "/projects/current" });
    return projectFromWire(body);
  }
}

export function createAuthClient(options: AuthClientOptions): AuthClient {
  return new AuthClient(options);
}
