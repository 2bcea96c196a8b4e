// Framework-free part of @authmw/react (also available as "@authmw/react/core"). The error
// classes of the catalogue are in "@authmw/react/errors" and the redirect, OAuth, passkey and
// TOTP helpers in "@authmw/react/protocol", so that a page that only signs users in does not
// load them (see docs/performance.md).
export { AuthmwError, KnownError, isKnownError } from "./known-error.js";
export type { ErrorDetails, KnownErrorClass, KnownErrorInit } from "./known-error.js";
export type { KnownErrorsByCode } from "./errors.gen.js";
export { Transport, MAX_ATTEMPTS, MAX_WAIT_MS, BACKOFF_BASE_MS } from "./transport.js";
export type {
  AccessType,
  ApiRequest,
  ApiResponse,
  HttpMethod,
  RequestTokens,
  SessionTokens,
  TokenProvider,
  TransportOptions,
} from "./transport.js";
export {
  createSessionStore,
  COOKIE_POLL_INTERVAL_MS,
  DEFAULT_MIN_VALIDITY_MS,
  MAX_MIN_VALIDITY_MS,
} from "./store.js";
export type { GetAccessTokenOptions, SessionAccess, SessionState, SessionStore, SessionStoreOptions } from "./store.js";
export {
  ACCESS_COOKIE,
  HEXCLAVE_ACCESS_COOKIE,
  LEGACY_REFRESH_COOKIE,
  readSessionCookies,
  readStoredSession,
  refreshCookieName,
  sessionCookieWrites,
  structuredRefreshCookieName,
} from "./cookies.js";
export type { CookieDocument, CookieFormat, CookieSameSite, StoredSession } from "./cookies.js";
export { createStore } from "./vanilla.js";
export type { Listener, StoreApi } from "./vanilla.js";
export { AuthClient, createAuthClient } from "./client.js";
export { CREATED_CLIENTS_WARNING_THRESHOLD } from "./created-clients.js";
export { checkFeatureSupport } from "./feature-support.js";
export type { AuthClientOptions } from "./client.js";
export type {
  AuthApis,
  AuthController,
  AuthFlows,
  AuthStatus,
  CallbackOptions,
  MagicLinkOptions,
  SignUpOptions,
  UserState,
} from "./controller.js";
export { AdminClient, DEFAULT_DASHBOARD_URL, createAdminClient, getProductionModeErrors, ownedProjects } from "./admin.js";
export type {
  AdminApiKeysApi,
  AdminClientOptions,
  AdminEmailTemplatesApi,
  AdminEmailThemesApi,
  AdminPermissionDefinitionsApi,
  AdminSignUpRulesApi,
  AdminTsxEmailTemplatesApi,
  ConfigLevel,
  OwnedProjectsApi,
  OwnerClient,
  ProductionModeError,
  SignUpRule,
  SignUpRules,
} from "./admin.js";
export { CACHE_DROP_AFTER_MS, CACHE_THROTTLE_MS, createAsyncCache } from "./cache.js";
export type { AsyncCache, AsyncCacheOptions, CachedState } from "./cache.js";
export type { AuthCaches } from "./api-context.js";
export type { ProjectPermissionsApi } from "./project-permissions.js";
export type { InviteOptions, TeamInvitationsApi, TeamMemberProfilesApi, TeamPermissionsApi, TeamsApi } from "./teams.js";
export type { ContactChannelsApi } from "./contact-channels.js";
export type { SessionLocation, SessionsApi, UserSession } from "./sessions.js";
export type { NewProjectApiKey, ProjectApiKey, ProjectApiKeyCreate, TeamApiKeysApi, UserApiKeysApi } from "./project-api-keys.js";
export type { OAuthProviderAccount, OAuthProviderAccountsApi, OAuthProviderAccountUpdate, OtherSignInMethods } from "./provider-accounts.js";
export type { NotificationPreference, NotificationPreferencesApi } from "./notification-preferences.js";
export type { RestrictedSessionApi, RestrictedUser } from "./restricted-session.js";
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
  EmailTheme,
  EmailThemeSummary,
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
  ReceivedTeamInvitation,
  TeamInvitation,
  TeamInvitationDetails,
  TeamMemberProfile,
  TeamMemberProfileUpdate,
  TeamPermission,
  ProjectPermission,
  TeamUpdate,
  TestEmailResult,
  TsxEmailTemplate,
} from "./models.js";
export { DEFAULT_HANDLER_PATH, resolveUrls } from "./urls.js";
export type { AuthUrlOverrides, AuthUrls } from "./urls.js";
export type {
  ConnectedAccount,
  GetConnectedAccountOptions,
  LinkOAuthOptions,
  OAuthApi,
  OAuthCallbackResult,
  SignInWithOAuthOptions,
} from "./oauth.js";
export { decodeJwtClaims } from "./jwt.js";
export { randomNonce } from "./random.js";
export { VERSION } from "./version.js";
export { SIGN_OUT_INTENT_PARAM, signOutIntentUrl } from "./sign-out-intent.js";
export { accessTokenKind, ALLOW_ANONYMOUS_HEADER, kindAllowed, LEGACY_ISSUER, TOKEN_KINDS } from "./token-kind.js";
export type { AccessTokenKind, UserKindOptions } from "./token-kind.js";
