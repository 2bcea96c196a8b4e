// @authmw/react: the framework-free core plus the React provider, hooks and handler pages.
export * from "./core.js";
export { AuthProvider } from "./react/provider.js";
export type { AuthProviderProps } from "./react/provider.js";
export type { RedirectMethod } from "./react/redirect.js";
export type { Navigate } from "./return-to.js";
export {
  useCachedValue,
  useConnectedAccount,
  useContactChannels,
  usePermission,
  useProjectPermission,
  useProjectPermissions,
  useProject,
  useSelectedTeam,
  useTeamInvitations,
  useReceivedTeamInvitations,
  useTeamMemberProfiles,
  useTeamPermissions,
  useTeams,
} from "./react/hooks.js";
export { useUser } from "./react/use-user.js";
export { useAuth } from "./react/use-auth.js";
export type { SignedInOrLoading, UseUserOptions } from "./react/use-user.js";
export type { UseAuthResult } from "./react/use-auth.js";
export { AuthHandler } from "./react/handler.js";
export type { AuthHandlerProps } from "./react/handler.js";
export { AuthStyles, DEFAULT_STYLES } from "./react/styles.js";
export { SignIn } from "./react/pages/sign-in.js";
export { SignUp } from "./react/pages/sign-up.js";
export { SignOut } from "./react/pages/sign-out.js";
export { SignOutLink } from "./react/sign-out-link.js";
export type { SignOutLinkProps } from "./react/sign-out-link.js";
export { EmailVerification } from "./react/pages/email-verification.js";
export { Onboarding } from "./react/pages/onboarding.js";
export { ForgotPassword } from "./react/pages/forgot-password.js";
export { PasswordReset } from "./react/pages/password-reset.js";
export { MagicLinkCallback } from "./react/pages/magic-link-callback.js";
export { MagicLinkSignIn } from "./react/pages/methods/magic-link-form.js";
// Building blocks of an app's own sign-in page (the handler pages' own parts).
export { CredentialSignIn, CredentialSignUp, OAuthButton, OAuthButtonGroup } from "./react/pages/methods/blocks.js";
export type { OAuthButtonGroupProps, OAuthButtonProps } from "./react/pages/methods/blocks.js";
export { MfaPrompt } from "./react/pages/mfa.js";
export { OAuthCallback } from "./react/pages/oauth-callback.js";
export { TeamInvitation } from "./react/pages/team-invitation.js";
export { TeamCreation } from "./react/pages/team-creation.js";
export { CliAuthConfirm } from "./react/pages/cli-auth-confirm.js";
export { AccountSettings } from "./react/pages/account/account-settings.js";
export { HandlerError, HandlerNotFound } from "./react/pages/error.js";
export { DEFAULT_MESSAGES, describeError, describeUntrustedError } from "./react/messages.js";
export type { Messages } from "./react/messages.js";
export type { Locale } from "./locales/locale.js";
export type { ColorScheme } from "./react/handler-options.js";
// The components (react/components/): modules of their own, left out of a page that does not use them.
export {
  COMPONENT_STYLES,
  ComponentStyles,
  DEFAULT_COMPONENT_TEXTS,
  Protect,
  RedirectToSignIn,
  SelectedTeamSwitcher,
  SignedIn,
  SignedOut,
  SignInButton,
  SignUpButton,
  UserAvatar,
  UserButton,
  VerificationNotice,
} from "./react/components/index.js";
export type {
  ComponentStyleProps,
  ComponentTexts,
  ProtectProps,
  ProtectRule,
  SelectedTeamSwitcherProps,
  AuthButtonProps,
  UserAvatarProps,
  SignedInProps,
  SignedOutProps,
  UserButtonProps,
  VerificationNoticeProps,
} from "./react/components/index.js";
