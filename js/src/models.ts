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
