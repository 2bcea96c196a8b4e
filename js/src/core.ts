// Framework-free part of @authmw/react (also available as "@authmw/react/core"). The error
// classes of the catalogue are in "@authmw/react/errors" and the redirect, OAuth, passkey and
// TOTP helpers in "@authmw/react/protocol", so that a page that only signs users in does not
// load them (see docs/performance.md).
export { AuthmwError, KnownError, isKnownError } from "./known-error";
export type { ErrorDetails, KnownErrorClass, KnownErrorInit } from "./known-error";
export type { KnownErrorsByCode } from "./errors.gen";
export { Transport, MAX_ATTEMPTS, MAX_WAIT_MS, BACKOFF_BASE_MS } from "./transport";
export type {
  AccessType,
  ApiRequest,
  ApiResponse,
  HttpMethod,
  RequestTokens,
  SessionTokens,
  TokenProvider,
  TransportOptions,
} from "./transport";
export {
  createSessionStore,
  COOKIE_POLL_INTERVAL_MS,
  DEFAULT_MIN_VALIDITY_MS,
  MAX_MIN_VALIDITY_MS,
} from "./store";
export type { GetAccessTokenOptions, SessionAccess, SessionState, SessionStore, SessionStoreOptions } from "./store";
export {
  ACCESS_COOKIE,
  HEXCLAVE_ACCESS_COOKIE,
  LEGACY_REFRESH_COOKIE,
  readSessionCookies,
  readStoredSession,
  refreshCookieName,
  sessionCookieWrites,
  structuredRefreshCookieName,
} from "./cookies";
export type { CookieDocument, CookieFormat, CookieSameSite, StoredSession } from "./cookies";
export { createStore } from "./vanilla";
export type { Listener, StoreApi } from "./vanilla";
export { AuthClient, createAuthClient } from "./client";
export { CREATED_CLIENTS_WARNING_THRESHOLD } from "./created-clients";
export { checkFeatureSupport } from "./feature-support";
export type { AuthClientOptions } from "./client";
export type {
  AuthApis,
  AuthController,
  AuthFlows,
  AuthStatus,
  CallbackOptions,
  MagicLinkOptions,
  SignUpOptions,
  UserState,
} from "./controller";
export { AdminClient, DEFAULT_DASHBOARD_URL, createAdminClient, getProductionModeErrors, ownedProjects } from "./admin";
export type {
  AdminApiKeysApi,
  AdminClientOptions,
  AdminEmailTemplatesApi,
  AdminPermissionDefinitionsApi,
  AdminSignUpRulesApi,
  ConfigLevel,
  OwnedProjectsApi,
  OwnerClient,
  ProductionModeError,
  SignUpRule,
  SignUpRules,
} from "./admin";
export { CACHE_DROP_AFTER_MS, CACHE_THROTTLE_MS, createAsyncCache } from "./cache";
export type { AsyncCache, AsyncCacheOptions, CachedState } from "./cache";
export type { AuthCaches } from "./api-context";
export type { ProjectPermissionsApi } from "./project-permissions";
export type { InviteOptions, TeamInvitationsApi, TeamMemberProfilesApi, TeamPermissionsApi, TeamsApi } from "./teams";
export type { ContactChannelsApi } from "./contact-channels";
export type { SessionLocation, SessionsApi, UserSession } from "./sessions";
export type { NewProjectApiKey, ProjectApiKey, ProjectApiKeyCreate, TeamApiKeysApi, UserApiKeysApi } from "./project-api-keys";
export type { OAuthProviderAccount, OAuthProviderAccountsApi, OAuthProviderAccountUpdate, OtherSignInMethods } from "./provider-accounts";
export type { NotificationPreference, NotificationPreferencesApi } from "./notification-preferences";
export type { RestrictedSessionApi, RestrictedUser } from "./restricted-session";
export type {
  AdminOAuthProvider,
  AdminProject,
  AdminProjectConfig,
  OAuthAccountMergeStrategy,
  AdminProjectUpdate,
  ApiKey,
  ApiKeyCreate,
  ContactChannel,
  ContactChannelCreate,
  ContactChannelType,
  ContactChannelUpdate,
  CurrentUser,
  CurrentUserUpdate,
  EmailConfig,
  EmailTemplate,
  EmailTemplateType,
  Metrics,
  NewApiKey,
  OAuthProviderLink,
  PermissionDefinition,
  Project,
  ProjectConfig,
  ProjectDomain,
  RestrictedReason,
  SignInResult,
  Team,
  TeamCreate,
  TeamInvitation,
  TeamInvitationDetails,
  TeamMemberProfile,
  TeamMemberProfileUpdate,
  TeamPermission,
  ProjectPermission,
  TeamUpdate,
  TestEmailResult,
} from "./models";
export { DEFAULT_HANDLER_PATH, resolveUrls } from "./urls";
export type { AuthUrlOverrides, AuthUrls } from "./urls";
export type {
  ConnectedAccount,
  GetConnectedAccountOptions,
  LinkOAuthOptions,
  OAuthApi,
  OAuthCallbackResult,
  SignInWithOAuthOptions,
} from "./oauth";
export { decodeJwtClaims } from "./jwt";
export { randomNonce } from "./random";
export { VERSION } from "./version";
export { SIGN_OUT_INTENT_PARAM, signOutIntentUrl } from "./sign-out-intent";
export { accessTokenKind, ALLOW_ANONYMOUS_HEADER, kindAllowed, LEGACY_ISSUER, TOKEN_KINDS } from "./token-kind";
export type { AccessTokenKind, UserKindOptions } from "./token-kind";
