// Wire shapes (snake_case, contract 5.2) and their camelCase counterparts (spec section 3).
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
  oauthProviders: { id: string }[];
}

export interface Project {
  id: string;
  displayName: string;
  config: ProjectConfig;
}

type Wire = Record<string, any>;

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
  };
}

const UPDATE_FIELDS: Record<keyof CurrentUserUpdate, string> = {
  displayName: "display_name",
  clientMetadata: "client_metadata",
  selectedTeamId: "selected_team_id",
  profileImageUrl: "profile_image_url",
  otpAuthEnabled: "otp_auth_enabled",
  passkeyAuthEnabled: "passkey_auth_enabled",
  totpSecretBase64: "totp_secret_base64",
};

export function userUpdateToWire(update: CurrentUserUpdate): Wire {
  const body: Wire = {};
  for (const [key, wire] of Object.entries(UPDATE_FIELDS)) {
    const value = update[key as keyof CurrentUserUpdate];
    if (value !== undefined) body[wire] = value;
  }
  return body;
}

export function projectFromWire(w: Wire): Project {
  const c = w.config ?? {};
  return {
    id: w.id,
    displayName: w.display_name,
    config: {
      signUpEnabled: Boolean(c.sign_up_enabled),
      credentialEnabled: Boolean(c.credential_enabled),
      magicLinkEnabled: Boolean(c.magic_link_enabled),
      passkeyEnabled: Boolean(c.passkey_enabled),
      clientTeamCreationEnabled: Boolean(c.client_team_creation_enabled),
      clientUserDeletionEnabled: Boolean(c.client_user_deletion_enabled),
      oauthProviders: ((c.enabled_oauth_providers ?? []) as Wire[]).map((p) => ({ id: p.id })),
    },
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

/** What an invitation code leads to (POST /team-invitations/accept/details). */
export interface TeamInvitationDetails {
  teamId: string;
  teamDisplayName: string;
}

/** A team permission the user holds (directly or, with recursive listing, contained). */
export interface TeamPermission {
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

export const teamMemberProfileFromWire = (w: Wire): TeamMemberProfile => ({
  teamId: w.team_id,
  userId: w.user_id,
  displayName: w.display_name ?? null,
  profileImageUrl: w.profile_image_url ?? null,
});

export const teamInvitationFromWire = (w: Wire): TeamInvitation => ({
  id: w.id,
  teamId: w.team_id,
  recipientEmail: w.recipient_email,
  expiresAt: new Date(w.expires_at_millis),
});

export const contactChannelFromWire = (w: Wire): ContactChannel => ({
  id: w.id,
  value: w.value,
  type: w.type,
  isVerified: Boolean(w.is_verified),
  isPrimary: Boolean(w.is_primary),
  usedForAuth: Boolean(w.used_for_auth),
});

/** camelCase fields -> snake_case wire fields, leaving out undefined ones. */
export function toWire(fields: Record<string, unknown>, names: Record<string, string>): Wire {
  const body: Wire = {};
  for (const [key, wire] of Object.entries(names)) {
    if (fields[key] !== undefined) body[wire] = fields[key];
  }
  return body;
}

export const TEAM_FIELDS = {
  displayName: "display_name",
  profileImageUrl: "profile_image_url",
  clientMetadata: "client_metadata",
};

export const CONTACT_CHANNEL_FIELDS = {
  value: "value",
  type: "type",
  usedForAuth: "used_for_auth",
  isPrimary: "is_primary",
};

export const MEMBER_PROFILE_FIELDS = { displayName: "display_name", profileImageUrl: "profile_image_url" };
