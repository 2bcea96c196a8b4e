import { createContext, useContext } from "react";
import type { HttpStatusError } from "../../../http-errors";
import type { isKnownError } from "../../../known-error";
import type { passkeysSupported } from "../../../passkey-support";
import type * as hooks from "../../hooks";
import type { useAuth } from "../../use-auth";
import type { describeError, describePasskeyError, useMessages } from "../../messages";
import type { QrCode } from "../../qr-code";
import type { useAuthRedirect } from "../../redirect";
import type { ProviderLogo, useProviderAction, useProviderLogos } from "../../oauth/provider-buttons";
import type { providerName } from "../../oauth/providers";
import type * as layout from "../layout";
import type { TotpCodeField } from "../mfa";

/**
 * What a section of the account settings page uses from the rest of the package, handed to it by
 * the page (SectionKitProvider) instead of imported. The sections load on demand (import()); a
 * section that imported the hooks, messages or layout modules itself would make an app's bundler
 * (esbuild's splitting) move those modules into the provider's first load, because the index
 * re-exports them. So a section imports only this module (React only), types, and leaf modules
 * (./format); everything else comes from useSectionKit().
 */
export interface SectionKit {
  useAuth: typeof useAuth;
  useContactChannels: typeof hooks.useContactChannels;
  usePermission: typeof hooks.usePermission;
  useTeamPermissions: typeof hooks.useTeamPermissions;
  useTeams: typeof hooks.useTeams;
  useTeamInvitations: typeof hooks.useTeamInvitations;
  useTeamMemberProfiles: typeof hooks.useTeamMemberProfiles;
  useMessages: typeof useMessages;
  useAuthRedirect: typeof useAuthRedirect;
  describePasskeyError: typeof describePasskeyError;
  describeError: typeof describeError;
  HttpStatusError: typeof HttpStatusError;
  isKnownError: typeof isKnownError;
  passkeysSupported: typeof passkeysSupported;
  EmailField: typeof layout.EmailField;
  Field: typeof layout.Field;
  FormError: typeof layout.FormError;
  formValue: typeof layout.formValue;
  NewPasswordFields: typeof layout.NewPasswordFields;
  repeatMismatch: typeof layout.repeatMismatch;
  Status: typeof layout.Status;
  SubmitButton: typeof layout.SubmitButton;
  useSubmit: typeof layout.useSubmit;
  QrCode: typeof QrCode;
  TotpCodeField: typeof TotpCodeField;
  ProviderLogo: typeof ProviderLogo;
  useProviderAction: typeof useProviderAction;
  useProviderLogos: typeof useProviderLogos;
  providerName: typeof providerName;
}

export const SectionKitContext = createContext<SectionKit | null>(null);

/** The kit the account settings page provides; a section rendered outside that page is a mistake. */
export function useSectionKit(): SectionKit {
  const kit = useContext(SectionKitContext);
  if (!kit) throw new Error("An account settings section was rendered outside <AccountSettings>; render the page, not the section.");
  return kit;
}
