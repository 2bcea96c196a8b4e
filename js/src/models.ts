// Wire shapes (snake_case, service-api A5.2) and their camelCase counterparts (service-api C3).
type Json = unknown;

export interface OAuthProviderLink {
  id: string;
  accountId: string;
  email: string | null;
}

export interface Team {
  id: string;
  displayName: string;
  profileImageUrl: string | null;
  clientMetadata: Json;
  clientReadOnlyMetadata: Json;
}

/** The signed-in user as the client tier sees it. */
export interface CurrentUser {
  id: string;
  displayName: string | null;
  primaryEmail: string | null;
  primaryEmailVerified: boolean;
  profileImageUrl: string | null;
  signedUpAt: Date;
  clientMetadata: Json;
  clientReadOnlyMetadata: Json;
  hasPassword: boolean;
  /** Deprecated alias of "has a password or OTP sign-in". */
  emailAuthEnabled: boolean;
  otpAuthEnabled: boolean;
  passkeyAuthEnabled: boolean;
  isMultiFactorRequired: boolean;
  oauthProviders: OAuthProviderLink[];
  selectedTeamId: string | null;
  selectedTeam: Team | null;
  /**
   * API 2.8: an anonymous user (no e-mail, no password; created by the 2.8 SDK on its own).
   * Seen only with `allowAnonymous`; false for every user of a 2.7 service. The client always
   * sets the three fields below; they are optional so that users written by hand stay valid.
   */
  isAnonymous?: boolean;
  /** API 2.8: a restricted user (anonymous, or e-mail not verified where the project requires it, or restricted by an administrator). Seen only with `allowRestricted` (or `allowAnonymous` for anonymous users). */
  isRestricted?: boolean;
  /** Why the user is restricted, or null. */
  restrictedReason?: RestrictedReason | null;
}

/** API 2.8: why a user is restricted. */
export interface RestrictedReason {
  type: "anonymous" | "email_not_verified" | "restricted_by_administrator" | (string & {});
}

/** Fields the client tier may change on itself (PATCH /users/me). */
export interface CurrentUserUpdate {
  displayName?: string | null;
  clientMetadata?: Json;
  selectedTeamId?: string | null;
  profileImageUrl?: string | null;
  otpAuthEnabled?: boolean;
  passkeyAuthEnabled?: boolean;
  totpSecretBase64?: string | null;
}

export interface ProjectConfig {
  signUpEnabled: boolean;
  credentialEnabled: boolean;
  magicLinkEnabled: boolean;
  passkeyEnabled: boolean;
  clientTeamCreationEnabled: boolean;
  clientUserDeletionEnabled: boolean;
  /** Users may make API keys of their own (API 2.8; false on 2.7). */
  allowUserApiKeys: boolean;
  /** Teams may have API keys, made by members with `$manage_api_keys` (API 2.8; false on 2.7). */
  allowTeamApiKeys: boolean;
  oauthProviders: { id: string }[];
}

export interface Project {
  id: string;
  displayName: string;
  config: ProjectConfig;
}

export type Wire = Record<string, any>;

export function teamFromWire(w: Wire): Team {
  return {
    id: w.id,
    displayName: w.display_name,
    profileImageUrl: w.profile_image_url ?? null,
    clientMetadata: w.client_metadata ?? null,
    clientReadOnlyMetadata: w.client_read_only_metadata ?? null,
  };
}

export function userFromWire(w: Wire): CurrentUser {
  return {
    id: w.id,
    displayName: w.display_name ?? null,
    primaryEmail: w.primary_email ?? null,
    primaryEmailVerified: Boolean(w.primary_email_verified),
    profileImageUrl: w.profile_image_url ?? null,
    signedUpAt: new Date(w.signed_up_at_millis),
    clientMetadata: w.client_metadata ?? null,
    clientReadOnlyMetadata: w.client_read_only_metadata ?? null,
    hasPassword: Boolean(w.has_password),
    emailAuthEnabled: Boolean(w.auth_with_email),
    otpAuthEnabled: Boolean(w.otp_auth_enabled),
    passkeyAuthEnabled: Boolean(w.passkey_auth_enabled),
    isMultiFactorRequired: Boolean(w.requires_totp_mfa),
    oauthProviders: ((w.oauth_providers ?? []) as Wire[]).map((p) => ({
      id: p.id,
      accountId: p.account_id,
      email: p.email ?? null,
    })),
    selectedTeamId: w.selected_team_id ?? null,
    selectedTeam: w.selected_team ? teamFromWire(w.selected_team) : null,
    isAnonymous: w.is_anonymous === true,
    isRestricted: Boolean(w.is_restricted || w.is_anonymous),
    restrictedReason: typeof w.restricted_reason?.type === "string" ? { type: w.restricted_reason.type } : null,
  };
}


/** A team member's profile (falls back to the user's own name and image). */
export interface TeamMemberProfile {
  teamId: string;
  userId: string;
  displayName: string | null;
  profileImageUrl: string | null;
}

export interface TeamMemberProfileUpdate {
  displayName?: string;
  profileImageUrl?: string | null;
}

/** A pending invitation to a team. */
export interface TeamInvitation {
  id: string;
  teamId: string;
  recipientEmail: string;
  expiresAt: Date;
}

/**
 * An invitation addressed to one of the signed-in user's verified e-mail addresses (API 2.8,
 * GET /team-invitations?user_id=me); accept it with `teamInvitations.acceptById(id)`.
 */
export interface ReceivedTeamInvitation extends TeamInvitation {
  teamDisplayName: string;
}

/** What an invitation code leads to (POST /team-invitations/accept/details). */
export interface TeamInvitationDetails {
  teamId: string;
  teamDisplayName: string;
}

/** A team permission the user holds (directly or, with recursive listing, contained). */
export interface TeamPermission {
  id: string;
}

/** A project permission the user holds (API 2.8; directly or, with recursive listing, contained). */
export interface ProjectPermission {
  id: string;
}

export interface TeamCreate {
  displayName: string;
  /** Client tier: a base64 image (data:image/...;base64,...) or null. */
  profileImageUrl?: string | null;
  clientMetadata?: Json;
}

export interface TeamUpdate {
  displayName?: string;
  profileImageUrl?: string | null;
  clientMetadata?: Json;
}

export type ContactChannelType = "email";

export interface ContactChannel {
  id: string;
  value: string;
  type: ContactChannelType;
  isVerified: boolean;
  isPrimary: boolean;
  usedForAuth: boolean;
}

export interface ContactChannelCreate {
  value: string;
  type?: ContactChannelType;
  usedForAuth: boolean;
  isPrimary?: boolean;
}

export interface ContactChannelUpdate {
  value?: string;
  type?: ContactChannelType;
  usedForAuth?: boolean;
  isPrimary?: boolean;
}

/** Result of a sign-in that may create the user (magic link / OTP, MFA). */
export interface SignInResult {
  user: CurrentUser | null;
  isNewUser: boolean;
}

/** camelCase fields -> snake_case wire fields, leaving out undefined ones. */
export function toWire(fields: Record<string, unknown>, names: Record<string, string>): Wire {
  const body: Wire = {};
  for (const [key, wire] of Object.entries(names)) {
    if (fields[key] !== undefined) body[wire] = fields[key];
  }
  return body;
}

// -- admin tier (service-api A5.2, A5.8-5.12) -------------------------------------------------------

/** An OAuth provider of the project: shared (the service's keys) or standard (yours). */
export interface AdminOAuthProvider {
  id: string;
  enabled: boolean;
  type: "shared" | "standard";
  clientId?: string;
  clientSecret?: string;
  facebookConfigId?: string;
  microsoftTenantId?: string;
  /** Local service only: sign in at the real provider with these keys instead of the mock. */
  realProvider?: boolean;
  /** Local service only: the OpenID Connect issuer (found by discovery) serving this provider. */
  oidcIssuerUrl?: string;
}

/** How the project sends e-mail: the service's shared sender, or your SMTP server. */
export interface EmailConfig {
  type: "shared" | "standard";
  host?: string;
  port?: number;
  username?: string;
  password?: string;
  senderName?: string;
  senderEmail?: string;
}

/** A trusted domain (`https://app.example.com`) and its handler path. */
export interface ProjectDomain {
  domain: string;
  handlerPath: string;
}

export interface AdminProjectConfig extends ProjectConfig {
  id: string;
  allowLocalhost: boolean;
  legacyGlobalJwtSigning: boolean;
  createTeamOnSignUp: boolean;
  /** Every configured provider (enabled or not), sorted by id. */
  oauthProviders: AdminOAuthProvider[];
  enabledOAuthProviders: { id: string }[];
  domains: ProjectDomain[];
  emailConfig: EmailConfig;
  teamCreatorDefaultPermissions: { id: string }[];
  teamMemberDefaultPermissions: { id: string }[];
  /** API 2.8: what an OAuth sign-up does with an e-mail another user signs in with ("link_method" on 2.7). */
  oauthAccountMergeStrategy: OAuthAccountMergeStrategy;
}

/**
 * What an OAuth sign-in with an e-mail that another user already signs in with does (API 2.8):
 * adds the provider to that user, refuses, or makes a second user.
 */
export type OAuthAccountMergeStrategy = "link_method" | "raise_error" | "allow_duplicates";

/** The project as the admin tier sees it. */
export interface AdminProject extends Project {
  description: string;
  createdAt: Date;
  userCount: number;
  isProductionMode: boolean;
  config: AdminProjectConfig;
}

/** A project change (or a new project's settings); left-out fields stay as they are. */
export interface AdminProjectUpdate {
  displayName?: string;
  description?: string | null;
  isProductionMode?: boolean;
  config?: {
    signUpEnabled?: boolean;
    credentialEnabled?: boolean;
    magicLinkEnabled?: boolean;
    passkeyEnabled?: boolean;
    clientTeamCreationEnabled?: boolean;
    clientUserDeletionEnabled?: boolean;
    allowUserApiKeys?: boolean;
    allowTeamApiKeys?: boolean;
    allowLocalhost?: boolean;
    createTeamOnSignUp?: boolean;
    legacyGlobalJwtSigning?: false;
    /** Replaces the whole list; `handlerPath` defaults to "/handler". */
    domains?: { domain: string; handlerPath?: string }[];
    /** Replaces the whole list, which must name every provider already configured. */
    oauthProviders?: AdminOAuthProvider[];
    emailConfig?: EmailConfig;
    teamCreatorDefaultPermissions?: { id: string }[];
    teamMemberDefaultPermissions?: { id: string }[];
    /** API 2.8 only. */
    oauthAccountMergeStrategy?: OAuthAccountMergeStrategy;
  };
}

/** A set of API keys as listed: only the last four characters of each key. */
export interface ApiKey {
  id: string;
  description: string;
  createdAt: Date;
  expiresAt: Date | null;
  manuallyRevokedAt: Date | null;
  publishableClientKeyLastFour: string | null;
  secretServerKeyLastFour: string | null;
  superSecretAdminKeyLastFour: string | null;
  /** "expired", "manually-revoked", or null while the keys work. */
  whyInvalid(now?: Date): "expired" | "manually-revoked" | null;
  isValid(now?: Date): boolean;
}

/** A just-created key set with the full key values: the only time they are shown. */
export interface NewApiKey extends ApiKey {
  publishableClientKey: string | null;
  secretServerKey: string | null;
  superSecretAdminKey: string | null;
}

export interface ApiKeyCreate {
  description: string;
  /** When the keys stop working. */
  expiresAt: Date | number;
  hasPublishableClientKey?: boolean;
  hasSecretServerKey?: boolean;
  hasSuperSecretAdminKey?: boolean;
}

export type EmailTemplateType = "email_verification" | "password_reset" | "magic_link" | "team_invitation";

export interface EmailTemplate {
  type: EmailTemplateType;
  subject: string;
  /** The editor document. */
  content: Json;
  isDefault: boolean;
}

/**
 * An API 2.8 e-mail template: a TSX module exporting `EmailTemplate` (rendered by React Email on
 * the service, by a documented subset on the local service). `themeId`: a theme's id, `false` for
 * no theme, `null` for the project's theme.
 */
export interface TsxEmailTemplate {
  id: string;
  displayName: string;
  tsxSource: string;
  themeId: string | false | null;
}

/** An API 2.8 e-mail theme as listed. */
export interface EmailThemeSummary {
  id: string;
  displayName: string;
}

/** An API 2.8 e-mail theme: a TSX module exporting `EmailTheme`, wrapping every template. */
export interface EmailTheme extends EmailThemeSummary {
  tsxSource: string;
}

export interface TestEmailResult {
  success: boolean;
  errorMessage: string | null;
}

export interface Metrics {
  totalUsers: number;
  dailyUsers: { date: string; activity: number }[];
  dailyActiveUsers: { date: string; activity: number }[];
  usersByCountry: Record<string, number>;
  recentlyRegistered: CurrentUser[];
  recentlyActive: CurrentUser[];
  loginMethods: { method: string; count: number }[];
}

export interface PermissionDefinition {
  id: string;
  description: string;
  containedPermissionIds: string[];
}

const KEY_KINDS = ["publishable_client_key", "secret_server_key", "super_secret_admin_key"] as const;
const millisDate = (value: unknown) => (typeof value === "number" ? new Date(value) : null);

/** snake_case keys, deeply (plain objects and arrays only): the wire form of an update. */
export function snakeKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(snakeKeys);
  if (value === null || typeof value !== "object" || Object.getPrototypeOf(value) !== Object.prototype) return value;
  const out: Wire = {};
  for (const [key, item] of Object.entries(value)) {
    if (item !== undefined) out[key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)] = snakeKeys(item);
  }
  return out;
}

export function adminProjectUpdateToWire(update: AdminProjectUpdate): Wire {
  const config = update.config && {
    ...update.config,
    domains: update.config.domains?.map((d) => ({ handlerPath: "/handler", ...d })),
  };
  return snakeKeys({ ...update, config }) as Wire;
}

export function apiKeyFromWire(w: Wire): NewApiKey {
  const lastFour = (kind: (typeof KEY_KINDS)[number]) => {
    const value = w[kind];
    if (typeof value === "string") return value.slice(-4);
    return value && typeof value.last_four === "string" ? (value.last_four as string) : null;
  };
  const full = (kind: (typeof KEY_KINDS)[number]) => (typeof w[kind] === "string" ? (w[kind] as string) : null);
  const key: NewApiKey = {
    id: w.id,
    description: w.description ?? "",
    createdAt: new Date(w.created_at_millis),
    expiresAt: millisDate(w.expires_at_millis),
    manuallyRevokedAt: millisDate(w.manually_revoked_at_millis),
    publishableClientKeyLastFour: lastFour("publishable_client_key"),
    secretServerKeyLastFour: lastFour("secret_server_key"),
    superSecretAdminKeyLastFour: lastFour("super_secret_admin_key"),
    publishableClientKey: full("publishable_client_key"),
    secretServerKey: full("secret_server_key"),
    superSecretAdminKey: full("super_secret_admin_key"),
    whyInvalid(now = new Date()) {
      if (key.expiresAt && key.expiresAt.getTime() < now.getTime()) return "expired";
      if (key.manuallyRevokedAt) return "manually-revoked";
      return null;
    },
    isValid(now?: Date) {
      return key.whyInvalid(now) === null;
    },
  };
  return key;
}

export function emailTemplateFromWire(w: Wire): EmailTemplate {
  return { type: w.type, subject: w.subject ?? "", content: w.content ?? null, isDefault: Boolean(w.is_default) };
}

export function tsxEmailTemplateFromWire(w: Wire): TsxEmailTemplate {
  const theme = w.theme_id;
  return {
    id: w.id,
    displayName: w.display_name ?? "",
    tsxSource: w.tsx_source ?? "",
    themeId: typeof theme === "string" || theme === false ? theme : null,
  };
}

export function metricsFromWire(w: Wire): Metrics {
  const days = (items: Wire[] | undefined) => (items ?? []).map((d) => ({ date: d.date, activity: d.activity }));
  return {
    totalUsers: w.total_users ?? 0,
    dailyUsers: days(w.daily_users),
    dailyActiveUsers: days(w.daily_active_users),
    usersByCountry: w.users_by_country ?? {},
    recentlyRegistered: ((w.recently_registered ?? []) as Wire[]).map(userFromWire),
    recentlyActive: ((w.recently_active ?? []) as Wire[]).map(userFromWire),
    loginMethods: ((w.login_methods ?? []) as Wire[]).map((m) => ({ method: m.method, count: m.count })),
  };
}

export function permissionDefinitionFromWire(w: Wire): PermissionDefinition {
  return { id: w.id, description: w.description ?? "", containedPermissionIds: w.contained_permission_ids ?? [] };
}
