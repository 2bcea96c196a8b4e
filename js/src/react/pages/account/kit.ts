import { createContext, useContext } from "react";
import type { HttpStatusError } from "../../../http-errors.js";
import type { isKnownError } from "../../../known-error.js";
import type { passkeysSupported } from "../../../passkey-support.js";
import type * as hooks from "../../hooks.js";
import type { useAuth } from "../../use-auth.js";
import type { describeError, describePasskeyError, useMessages } from "../../messages.js";
import type { QrCode } from "../../qr-code.js";
import type { useAuthRedirect } from "../../redirect.js";
import type { ProviderLogo, useProviderAction, useProviderLogos } from "../../oauth/provider-buttons.js";
import type { providerName } from "../../oauth/providers.js";
import type * as layout from "../layout.js";
import type { TotpCodeField } from "../mfa.js";

/**
 * What a section of the account settings page uses from the rest of the package, handed to it by
 * the page (SectionKitProvider) instead of imported. The sections load on demand (import()); a
 * section that imported the hooks, messages or layout modules itself would make an app's bundler
 * (esbuild's splitting) move those modules into the provider's first load, because the index
 * re-exports them. So a section imports only this module (React only), types, and leaf modules
 * (./format); everything else comes from useSectionKit(). The onboarding page's add-e-mail form
 * (../onboarding-email.tsx), which loads on demand too, gets the same kit from that page.
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
