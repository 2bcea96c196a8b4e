// The wire conversions of calls an app's first page does not make (the project's configuration,
// a change of the user; the admin tier's project): the client imports this module with such a
// call, so that models.ts, which the first load of every app carries, holds only what shows the
// signed-in user.
import { toWire, type AdminOAuthProvider, type AdminProject, type CurrentUserUpdate, type Project, type Wire } from "./models.js";

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
  return toWire(update as Record<string, unknown>, UPDATE_FIELDS);
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
      allowUserApiKeys: Boolean(c.allow_user_api_keys),
      allowTeamApiKeys: Boolean(c.allow_team_api_keys),
      oauthProviders: ((c.enabled_oauth_providers ?? []) as Wire[]).map((p) => ({ id: p.id })),
    },
  };
}

const camel = (key: string) => key.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

/** camelCase keys, deeply (the admin view's nested settings are plain data). */
function camelKeys(value: unknown): any {
  if (Array.isArray(value)) return value.map(camelKeys);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [camel(key), camelKeys(item)]));
}

const OAUTH_PROVIDER_FIELDS = [
  "clientId",
  "clientSecret",
  "facebookConfigId",
  "microsoftTenantId",
  "realProvider",
  "oidcIssuerUrl",
] as const;

/** One provider of the admin view (camelCase keys). API 2.8 lists enabled providers only and
 * drops `enabled`: absent means enabled. Its other 2.8 fields are not part of the model. */
function adminOAuthProviderFromWire(p: Wire): AdminOAuthProvider {
  const provider: AdminOAuthProvider = { id: p.id, type: p.type ?? "shared", enabled: p.enabled ?? true };
  for (const field of OAUTH_PROVIDER_FIELDS) if (p[field] != null) provider[field] = p[field];
  return provider;
}

export function adminProjectFromWire(w: Wire): AdminProject {
  const base = projectFromWire(w);
  const c = camelKeys(w.config ?? {});
  return {
    ...base,
    description: w.description ?? "",
    createdAt: new Date(w.created_at_millis),
    userCount: w.user_count ?? 0,
    isProductionMode: Boolean(w.is_production_mode),
    config: {
      ...base.config,
      id: c.id,
      allowLocalhost: Boolean(c.allowLocalhost),
      legacyGlobalJwtSigning: Boolean(c.legacyGlobalJwtSigning),
      createTeamOnSignUp: Boolean(c.createTeamOnSignUp),
      oauthProviders: ((c.oauthProviders ?? []) as Wire[]).map(adminOAuthProviderFromWire),
      enabledOAuthProviders: c.enabledOauthProviders ?? [],
      domains: c.domains ?? [],
      emailConfig: c.emailConfig ?? { type: "shared" },
      teamCreatorDefaultPermissions: c.teamCreatorDefaultPermissions ?? [],
      teamMemberDefaultPermissions: c.teamMemberDefaultPermissions ?? [],
      oauthAccountMergeStrategy: c.oauthAccountMergeStrategy ?? "link_method",
    },
  };
}
