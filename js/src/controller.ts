// The contract between the React layer and a client: the user's state and every call, declared
// (and documented) once here. AuthClient implements it over the service; the testing fake in
// testing.tsx implements it in memory; useAuth derives its result type from it.
import type { AuthCaches } from "./api-context.js";
import type { ContactChannelsApi } from "./contact-channels.js";
import type { CurrentUser, CurrentUserUpdate, Project, SignInResult } from "./models.js";
import type { OAuthApi } from "./oauth.js";
import type { TeamApiKeysApi, UserApiKeysApi } from "./project-api-keys.js";
import type { NotificationPreferencesApi } from "./notification-preferences.js";
import type { OAuthProviderAccountsApi } from "./provider-accounts.js";
import type { RestrictedSessionApi } from "./restricted-session.js";
import type { Navigate } from "./return-to.js";
import type { SessionsApi } from "./sessions.js";
import type { GetAccessTokenOptions } from "./store.js";
import type { ProjectPermissionsApi } from "./project-permissions.js";
import type { TeamInvitationsApi, TeamMemberProfilesApi, TeamPermissionsApi, TeamsApi } from "./teams.js";
import type { TotpSetup } from "./totp.js";
import type { AuthUrls } from "./urls.js";

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

/**
 * The sign-in and account calls. flows.ts implements them (AuthClient imports it with the first
 * call of one), the testing fake fakes them, and useAuth hands each out under its name.
 */
export interface AuthFlows {
  /** Signs in with e-mail and password (EmailPasswordMismatch, MultiFactorAuthenticationRequired). */
  signInWithCredential(email: string, password: string): Promise<CurrentUser | null>;
  /** Signs up with e-mail and password and signs the new user in (UserEmailAlreadyExists, PasswordRequirementsNotMet, SignUpNotEnabled). */
  signUpWithCredential(email: string, password: string, options?: SignUpOptions): Promise<CurrentUser | null>;
  /**
   * Signs up an anonymous user (API 2.8, POST /auth/anonymous/sign-up) and keeps its session,
   * unless a session is kept already (then its user, or null when the app does not show it).
   * Needs an app that shows anonymous users (allowAnonymous). Calls made while one is under way
   * share it. A later sign-up (password, e-mail link or code, OAuth) upgrades the anonymous user
   * to a real account with the same id.
   */
  signUpAnonymously(): Promise<CurrentUser | null>;
  /**
   * Ends the session on the service and forgets the tokens (also when the call fails). API 2.8
   * ends the session named by the access token (refreshed first when it is expired); the
   * refresh token goes along for 2.7. A REFRESH_TOKEN_ERROR means the session had already
   * ended. A session this app does not show (an anonymous or restricted user it does not
   * allow) is left as it is: it is not the app's to end, and for the app nobody is signed in.
   */
  signOut(): Promise<void>;
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
  /**
   * Signs in with a passkey: the browser asks which one. With `autofill`, the browser offers
   * passkeys in the autocomplete of an `autocomplete="username webauthn"` input instead, and
   * the promise settles when the person picks one. Throws PasskeyWebauthnError (the person
   * cancelled, or the browser refused), PasskeyAuthenticationFailed, or
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
  /**
   * CLI sign-in (API 2.8): checks the login code of a command-line tool's sign-in link
   * (HttpStatusError 400 when it is unknown, used or expired; NotInServiceVersion-like 404 on 2.7).
   */
  checkCliLogin(loginCode: string): Promise<void>;
  /**
   * Hands this browser's session to the command-line tool that made `loginCode` (the tool's
   * poll then gets it). Only after the person confirmed, on a page of the app's own.
   */
  confirmCliLogin(loginCode: string): Promise<void>;
}

/**
 * The names of the flows, for the code that needs them while the program runs (AuthClient's
 * stand-ins that load flows.ts, useAuth's calls). One string of words keeps an app's first load
 * small; the compiler holds it to AuthFlows both ways (below).
 */
const FLOW_WORDS = "signInWithCredential signUpWithCredential signUpAnonymously signOut verifyEmail sendMagicLinkEmail signInWithMagicLink signInWithMfa sendForgotPasswordEmail verifyPasswordResetCode resetPassword updatePassword setPassword sendVerificationEmail signInWithPasskey registerPasskey removePasskey createTotpSetup enableTotp disableTotp checkCliLogin confirmCliLogin";
export const FLOW_NAMES = FLOW_WORDS.split(" ") as (keyof AuthFlows)[];
type Words<S extends string> = S extends `${infer Word} ${infer Rest}` ? Word | Words<Rest> : S;
type Listed = Words<typeof FLOW_WORDS>;
// A compile error on one of these two lines names a flow missing from FLOW_WORDS, or a word
// there that is no flow of AuthFlows.
const unlisted: never = undefined as unknown as Exclude<keyof AuthFlows, Listed>;
const notAFlow: never = undefined as unknown as Exclude<Listed, keyof AuthFlows>;
void [unlisted, notAFlow];

/** The namespaces of calls: each a module of its own, which AuthClient imports with its first call. */
export interface AuthApis {
  readonly teams: TeamsApi;
  readonly teamMemberProfiles: TeamMemberProfilesApi;
  readonly teamPermissions: TeamPermissionsApi;
  readonly teamInvitations: TeamInvitationsApi;
  /** The user's project permissions (API 2.8), those outside any team. */
  readonly projectPermissions: ProjectPermissionsApi;
  readonly contactChannels: ContactChannelsApi;
  /** OAuth sign-in, linking and connected accounts. */
  readonly oauth: OAuthApi;
  /** The user's sessions (API 2.8): list them, end another. */
  readonly sessions: SessionsApi;
  /** The signed-in user's API keys (API 2.8): make, list, revoke. */
  readonly apiKeys: UserApiKeysApi;
  /** A team's API keys (API 2.8), for members with `$manage_api_keys`. */
  readonly teamApiKeys: TeamApiKeysApi;
  /** The user's OAuth provider accounts (API 2.8): list them, turn sign-in or connected-account use on or off, unlink one. */
  readonly providerAccounts: OAuthProviderAccountsApi;
  /** The user's e-mail notification preferences (API 2.8): one per category, on or off. */
  readonly notificationPreferences: NotificationPreferencesApi;
  /**
   * The session of a restricted user (API 2.8), also when the app does not accept restricted
   * users: what the onboarding page reads and calls (see restricted-session.ts).
   */
  readonly restrictedSession: RestrictedSessionApi;
}

/**
 * What the React layer needs; implemented by AuthClient and by the testing fake. A call is
 * declared once: here (the session and user calls the client makes itself), in AuthFlows or
 * in AuthApis; the compiler then names every place that must follow (docs/architecture.md).
 */
export interface AuthController extends AuthFlows, AuthApis {
  readonly urls: AuthUrls;
  getUserState(): UserState;
  subscribe(listener: () => void): () => void;
  /** Starts cookie polling and the first user load; returns the matching stop function. */
  start(): () => void;
  getAccessToken(options?: GetAccessTokenOptions): Promise<string | null>;
  /**
   * The app's client-side navigation, which every redirect of the package uses for a page on the
   * page's own origin (sign-in, onboarding, the pages after signing in; see leave in
   * return-to.ts); without it they load the page. <AuthProvider> sets it from its `redirectMethod`.
   */
  navigate?: Navigate;
  getAuthHeaders(): Promise<{ "x-stack-auth": string }>;
  getUser(): Promise<CurrentUser | null>;
  updateUser(update: CurrentUserUpdate): Promise<CurrentUser>;
  deleteUser(): Promise<void>;
  getProject(): Promise<Project>;
  /** Selects a team (or none) for the user. */
  selectTeam(teamId: string | null): Promise<CurrentUser>;
  readonly caches: AuthCaches;
}
