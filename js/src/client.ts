// Client-tier calls over one transport and one session, plus the signed-in user as observable state.
import type { AuthCaches } from "./api-context";
import { createAsyncCache } from "./cache";
import { createContactChannelsApi, type ContactChannelsApi } from "./contact-channels";
import type { CookieDocument, CookieFormat, CookieSameSite } from "./cookies";
import type { PublicKeyCredentialCreationOptionsJSON, PublicKeyCredentialRequestOptionsJSON } from "@simplewebauthn/browser";
import { AuthmwError, CannotGetOwnUserWithoutUser, RefreshTokenError } from "./errors";
import {
  projectFromWire,
  userFromWire,
  userUpdateToWire,
  type CurrentUser,
  type CurrentUserUpdate,
  type Project,
  type SignInResult,
} from "./models";
import {
  authenticationOptions,
  createCredential,
  getCredential,
  registrationOptions,
  type PasskeyChallenge,
} from "./passkeys";
import { createSessionStore, type GetAccessTokenOptions, type SessionStore } from "./store";
import {
  createTeamInvitationsApi,
  createTeamMemberProfilesApi,
  createTeamPermissionsApi,
  createTeamsApi,
  type TeamInvitationsApi,
  type TeamMemberProfilesApi,
  type TeamPermissionsApi,
  type TeamsApi,
} from "./teams";
import { checkTotpSetupCode, createTotpSetup, type TotpSetup } from "./totp";
import { Transport, type SessionTokens, type TokenProvider, type TransportOptions } from "./transport";
import {
  absoluteUrl,
  callbackUrl,
  resolveUrls,
  toRelativeUrl,
  withReturnTo,
  type AuthUrlOverrides,
  type AuthUrls,
} from "./urls";
import { createStore, type StoreApi } from "./vanilla";
import { createOAuthApi, type OAuthApi, type SignInWithOAuthOptions } from "./oauth";

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

export interface MagicLinkOptions {
  /** Absolute URL the e-mail links to; default {handler}/magic-link-callback on this origin. */
  callbackUrl?: string;
  /** Kept on the link so the user comes back to it after signing in. */
  afterAuthReturnTo?: string | null;
}

export interface CallbackOptions {
  /** Absolute URL the e-mail links to; default: the matching handler page on this origin. */
  callbackUrl?: string;
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

  /**
   * Sends a magic-link / one-time-code e-mail (POST /auth/otp/send-sign-in-code). Returns the nonce
   * that completes a typed 6-character code. Throws RedirectUrlNotWhitelisted, UserEmailAlreadyExists,
   * SignUpNotEnabled; a project without magic link answers a plain 403 (HttpStatusError).
   */
  sendMagicLinkEmail(email: string, options?: MagicLinkOptions): Promise<{ nonce: string }>;
  /**
   * Signs in with the 45-character code of the link, or with the typed 6-character code and the
   * nonce of sendMagicLinkEmail. Throws VerificationCodeError subclasses, or
   * MultiFactorAuthenticationRequired (continue with signInWithMfa and its attemptCode).
   */
  signInWithMagicLink(code: string, nonce?: string): Promise<SignInResult>;
  /** Completes a sign-in that needs TOTP (InvalidTotpCode keeps the attempt code usable). */
  signInWithMfa(attemptCode: string, totp: string): Promise<SignInResult>;
  /** Sends the password-reset e-mail (always succeeds for unknown addresses, after 2-3 s). */
  sendForgotPasswordEmail(email: string, options?: CallbackOptions): Promise<void>;
  /** Checks a reset code without using it (VerificationCodeError subclasses when it is no good). */
  verifyPasswordResetCode(code: string): Promise<void>;
  /** Sets a new password with a reset code; every session of that user ends. */
  resetPassword(options: { code: string; password: string }): Promise<void>;
  /** Changes the password; this session survives, the user's other sessions end. PasswordConfirmationMismatch = wrong old password. */
  updatePassword(options: { oldPassword: string; newPassword: string }): Promise<void>;
  /** Sets a password for a user who has none. */
  setPassword(options: { password: string }): Promise<void>;
  /** Sends the verification e-mail of the primary address (EmailAlreadyVerified when it is). */
  sendVerificationEmail(options?: CallbackOptions): Promise<void>;
  /** Selects a team (or none) for the user. */
  selectTeam(teamId: string | null): Promise<CurrentUser>;

  /**
   * Signs in with a passkey: the browser asks which one (contract 6.7). With `autofill`, the
   * browser offers passkeys in the autocomplete of an `autocomplete="username webauthn"` input
   * instead, and the promise settles when the person picks one. Throws PasskeyWebauthnError
   * (the person cancelled, or the browser refused), PasskeyAuthenticationFailed, or
   * MultiFactorAuthenticationRequired (continue with signInWithMfa).
   */
  signInWithPasskey(options?: { autofill?: boolean }): Promise<SignInResult>;
  /** Registers a passkey for the signed-in user (replacing the one they had: one per user). */
  registerPasskey(): Promise<CurrentUser>;
  /** Removes the user's passkey (passkey_auth_enabled: false). */
  removePasskey(): Promise<CurrentUser>;
  /** A new TOTP secret and its otpauth:// URI; nothing changes until enableTotp. */
  createTotpSetup(): Promise<TotpSetup>;
  /** Turns TOTP on with the set-up's secret once `code` matches it (InvalidTotpCode otherwise). */
  enableTotp(setup: TotpSetup, code: string): Promise<CurrentUser>;
  /** Turns TOTP off. */
  disableTotp(): Promise<CurrentUser>;

  readonly teams: TeamsApi;
  readonly teamMemberProfiles: TeamMemberProfilesApi;
  readonly teamPermissions: TeamPermissionsApi;
  readonly teamInvitations: TeamInvitationsApi;
  readonly contactChannels: ContactChannelsApi;
  /** OAuth sign-in, linking and connected accounts. */
  readonly oauth: OAuthApi;
  readonly caches: AuthCaches;
}

export interface AuthClientOptions extends Omit<TransportOptions, "baseUrl"> {
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

interface SignInResponse {
  access_token: string;
  refresh_token: string;
  user_id: string;
  is_new_user?: boolean;
}

/** A return-to URL put on an e-mail link: relative only (UntrustedRedirectError otherwise). */
const relativeReturnTo = (url: string | null | undefined) => (url ? toRelativeUrl(url) : null);

/** Length of the one-time code shown in magic-link e-mails. */
const OTP_LENGTH = 6;

/** The 45-character code for a typed one-time code: its 6 characters, lower-cased, + the nonce. */
export function otpCode(otp: string, nonce: string): string {
  const typed = otp.replace(/[\s-]/g, "").toLowerCase();
  if (typed.length !== OTP_LENGTH) {
    throw new AuthmwError(`With a nonce, the code must be the ${OTP_LENGTH}-character code from the e-mail.`);
  }
  return typed + nonce;
}

export class AuthClient implements AuthController {
  readonly urls: AuthUrls;
  readonly transport: Transport;
  readonly session: SessionStore;
  readonly userStore: StoreApi<{ value: UserState }>;
  readonly caches: AuthCaches;
  readonly teams: TeamsApi;
  readonly teamMemberProfiles: TeamMemberProfilesApi;
  readonly teamPermissions: TeamPermissionsApi;
  readonly teamInvitations: TeamInvitationsApi;
  readonly contactChannels: ContactChannelsApi;
  readonly oauth: OAuthApi;
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
      cookieFormat: options.cookieFormat,
      cookieSameSite: options.cookieSameSite,
      now: options.now,
      initialTokens: options.initialTokens,
    });
    const initial: UserState = this.session.getState().refreshToken
      ? { status: "loading", user: null }
      : { status: "signed-out", user: null };
    this.userStore = createStore<{ value: UserState }>({ value: initial });
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
    const ctx = {
      request: this.transport.request.bind(this.transport),
      session: this.session,
      urls: this.urls,
      caches,
      reloadUser: () => this.refreshUser(),
    };
    this.teams = createTeamsApi(ctx);
    this.teamMemberProfiles = createTeamMemberProfilesApi(ctx);
    this.teamPermissions = createTeamPermissionsApi(ctx);
    this.teamInvitations = createTeamInvitationsApi(ctx);
    this.contactChannels = createContactChannelsApi(ctx);
    this.oauth = createOAuthApi(ctx, {
      transport: this.transport,
      cookies: options.cookies === undefined ? (typeof document !== "undefined" ? document : null) : options.cookies,
      assign: options.assign,
      now: options.now,
      storeSignIn: ({ accessToken, refreshToken }) => {
        this.session.setTokens({ refreshToken, accessToken });
        return this.reloadUser();
      },
    });
    this.session.subscribe((state, previous) => {
      if (state.refreshToken === previous.refreshToken) return;
      // Another session (or none): every cached value of the user is someone else's now.
      for (const [name, cache] of Object.entries(caches)) if (name !== "project") cache.clear();
      void this.reloadUser().catch(() => {});
    });
  }

  /** reloadUser, but never sharing a load that started before a change. */
  private refreshUser(): Promise<CurrentUser | null> {
    this.userLoad = null;
    return this.reloadUser();
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

  /** Sends the browser to the provider's sign-in (spec 4, OAuth flow); `oauth` has the rest. */
  signInWithOAuth(provider: string, options?: SignInWithOAuthOptions): Promise<void> {
    return this.oauth.signIn(provider, options);
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
      absoluteUrl(withReturnTo(this.urls.emailVerification, relativeReturnTo(options.afterAuthReturnTo)));
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

  async sendMagicLinkEmail(email: string, options: MagicLinkOptions = {}): Promise<{ nonce: string }> {
    const page = withReturnTo(this.urls.magicLinkCallback, relativeReturnTo(options.afterAuthReturnTo));
    const callback_url = callbackUrl("sendMagicLinkEmail", page, options.callbackUrl);
    const { body } = await this.transport.request<{ nonce: string }>({
      method: "POST",
      path: "/auth/otp/send-sign-in-code",
      body: { email, callback_url },
    });
    return { nonce: body.nonce };
  }

  async signInWithMagicLink(code: string, nonce?: string): Promise<SignInResult> {
    const full = nonce === undefined ? code.trim() : otpCode(code, nonce);
    const { body } = await this.transport.request<SignInResponse>({
      method: "POST",
      path: "/auth/otp/sign-in",
      body: { code: full },
    });
    return { isNewUser: Boolean(body.is_new_user), user: await this.storeSignIn(body) };
  }

  async signInWithMfa(attemptCode: string, totp: string): Promise<SignInResult> {
    const { body } = await this.transport.request<SignInResponse>({
      method: "POST",
      path: "/auth/mfa/sign-in",
      body: { code: attemptCode, type: "totp", totp: totp.replace(/\s/g, "") },
    });
    return { isNewUser: Boolean(body.is_new_user), user: await this.storeSignIn(body) };
  }

  async sendForgotPasswordEmail(email: string, options: CallbackOptions = {}): Promise<void> {
    const callback_url = callbackUrl("sendForgotPasswordEmail", this.urls.passwordReset, options.callbackUrl);
    await this.transport.request({ method: "POST", path: "/auth/password/send-reset-code", body: { email, callback_url } });
  }

  async verifyPasswordResetCode(code: string): Promise<void> {
    await this.transport.request({ method: "POST", path: "/auth/password/reset/check-code", body: { code } });
  }

  async resetPassword({ code, password }: { code: string; password: string }): Promise<void> {
    await this.transport.request({ method: "POST", path: "/auth/password/reset", body: { code, password } });
  }

  async updatePassword({ oldPassword, newPassword }: { oldPassword: string; newPassword: string }): Promise<void> {
    // The session's x-stack-refresh-token goes with it, so this session is the one that survives.
    await this.transport.request({
      method: "POST",
      path: "/auth/password/update",
      body: { old_password: oldPassword, new_password: newPassword },
      session: this.session,
    });
  }

  async setPassword({ password }: { password: string }): Promise<void> {
    await this.transport.request({ method: "POST", path: "/auth/password/set", body: { password }, session: this.session });
    await this.refreshUser().catch(() => {});
  }

  async sendVerificationEmail(options: CallbackOptions = {}): Promise<void> {
    const callback_url = callbackUrl("sendVerificationEmail", this.urls.emailVerification, options.callbackUrl);
    const state = this.getUserState();
    const user = state.status === "signed-in" ? state.user : await this.getUser();
    if (!user) throw new AuthmwError("sendVerificationEmail needs a signed-in user.");
    if (!user.primaryEmail) throw new AuthmwError("The signed-in user has no primary e-mail to verify.");
    await this.transport.request({
      method: "POST",
      path: "/contact-channels/send-verification-code",
      body: { email: user.primaryEmail, callback_url },
      session: this.session,
    });
  }

  selectTeam(teamId: string | null): Promise<CurrentUser> {
    return this.updateUser({ selectedTeamId: teamId });
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
    this.caches.contactChannels.invalidate();
    if (this.getUserState().status === "signed-in") await this.refreshUser().catch(() => {});
  }

  async signInWithPasskey(options: { autofill?: boolean } = {}): Promise<SignInResult> {
    const { body: started } = await this.transport.request<PasskeyChallenge<PublicKeyCredentialRequestOptionsJSON>>({
      method: "POST",
      path: "/auth/passkey/initiate-passkey-authentication",
      body: {},
    });
    const answer = await getCredential(authenticationOptions(started.options_json, location.hostname), options.autofill);
    const { body } = await this.transport.request<SignInResponse>({
      method: "POST",
      path: "/auth/passkey/sign-in",
      body: { authentication_response: answer, code: started.code },
    });
    return { isNewUser: Boolean(body.is_new_user), user: await this.storeSignIn(body) };
  }

  async registerPasskey(): Promise<CurrentUser> {
    const { body: started } = await this.transport.request<PasskeyChallenge<PublicKeyCredentialCreationOptionsJSON>>({
      method: "POST",
      path: "/auth/passkey/initiate-passkey-registration",
      body: {},
      session: this.session,
    });
    const credential = await createCredential(registrationOptions(started.options_json, location.hostname));
    await this.transport.request({
      method: "POST",
      path: "/auth/passkey/register",
      body: { credential, code: started.code },
      session: this.session,
    });
    return this.userAfterChange();
  }

  removePasskey(): Promise<CurrentUser> {
    return this.updateUser({ passkeyAuthEnabled: false });
  }

  async createTotpSetup(): Promise<TotpSetup> {
    const [project, user] = await Promise.all([this.getProject(), this.getUser()]);
    if (!user) throw new AuthmwError("Sign in first: TOTP is set up for the signed-in user.");
    return createTotpSetup(project.displayName || project.id, user.primaryEmail ?? user.displayName ?? user.id);
  }

  async enableTotp(setup: TotpSetup, code: string): Promise<CurrentUser> {
    await checkTotpSetupCode(setup, code);
    return this.updateUser({ totpSecretBase64: setup.secretBase64 });
  }

  disableTotp(): Promise<CurrentUser> {
    return this.updateUser({ totpSecretBase64: null });
  }

  /** The signed-in user after a change made outside PATCH /users/me (e.g. a new passkey). */
  private async userAfterChange(): Promise<CurrentUser> {
    const user = await this.refreshUser();
    if (!user) throw new AuthmwError("The session ended while the change was made; sign in again.");
    return user;
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
