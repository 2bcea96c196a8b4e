// Framework-free part of @authmw/react (also available as "@authmw/react/core").
export * from "./errors";
export { Transport, MAX_ATTEMPTS, MAX_WAIT_MS, BACKOFF_BASE_MS } from "./transport";
export type { ApiRequest, ApiResponse, HttpMethod, SessionTokens, TokenProvider, TransportOptions } from "./transport";
export {
  createSessionStore,
  COOKIE_POLL_INTERVAL_MS,
  DEFAULT_MIN_VALIDITY_MS,
  MAX_MIN_VALIDITY_MS,
} from "./store";
export type { GetAccessTokenOptions, SessionState, SessionStore, SessionStoreOptions } from "./store";
export {
  ACCESS_COOKIE,
  LEGACY_REFRESH_COOKIE,
  readSessionCookies,
  refreshCookieName,
  sessionCookieWrites,
} from "./cookies";
export type { CookieDocument } from "./cookies";
export { createStore } from "./vanilla";
export type { Listener, StoreApi } from "./vanilla";
export { AuthClient, createAuthClient } from "./client";
export type { AuthClientOptions, AuthController, AuthStatus, SignUpOptions, UserState } from "./client";
export type { CurrentUser, CurrentUserUpdate, OAuthProviderLink, Project, ProjectConfig, Team } from "./models";
export {
  DEFAULT_HANDLER_PATH,
  RETURN_TO_PARAM,
  UntrustedRedirectError,
  authPageUrl,
  redirectToSignIn,
  resolveUrls,
  toRelativeUrl,
  trustedReturnTo,
} from "./urls";
export type { AuthUrlOverrides, AuthUrls } from "./urls";
export { decodeJwtClaims } from "./jwt";
export { randomNonce } from "./random";
export { VERSION } from "./version";
