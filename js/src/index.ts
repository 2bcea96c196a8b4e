// @authmw/react: the framework-free core plus the React provider, hooks and handler pages.
export * from "./core";
export { AuthProvider } from "./react/provider";
export type { AuthProviderProps } from "./react/provider";
export type { RedirectMethod } from "./react/redirect";
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
  useTeamMemberProfiles,
  useTeamPermissions,
  useTeams,
  useUser,
} from "./react/hooks";
export { useAuth } from "./react/use-auth";
export type { SignedInOrLoading, UseUserOptions } from "./react/hooks";
export type { UseAuthResult } from "./react/use-auth";
export { AuthHandler } from "./react/handler";
export type { AuthHandlerProps } from "./react/handler";
export { AuthStyles, DEFAULT_STYLES } from "./react/styles";
export { SignIn } from "./react/pages/sign-in";
export { SignUp } from "./react/pages/sign-up";
export { SignOut } from "./react/pages/sign-out";
export { SignOutLink } from "./react/sign-out-link";
export type { SignOutLinkProps } from "./react/sign-out-link";
export { EmailVerification } from "./react/pages/email-verification";
export { Onboarding } from "./react/pages/onboarding";
export { ForgotPassword } from "./react/pages/forgot-password";
export { PasswordReset } from "./react/pages/password-reset";
export { MagicLinkCallback } from "./react/pages/magic-link-callback";
export { MagicLinkSignIn } from "./react/pages/methods/magic-link-form";
// Building blocks of an app's own sign-in page (the handler pages' own parts).
export { CredentialSignIn, CredentialSignUp, OAuthButton, OAuthButtonGroup } from "./react/pages/methods/blocks";
export type { OAuthButtonGroupProps, OAuthButtonProps } from "./react/pages/methods/blocks";
export { MfaPrompt } from "./react/pages/mfa";
export { OAuthCallback } from "./react/pages/oauth-callback";
export { TeamInvitation } from "./react/pages/team-invitation";
export { TeamCreation } from "./react/pages/team-creation";
export { AccountSettings } from "./react/pages/account/account-settings";
export { HandlerError, HandlerNotFound } from "./react/pages/error";
export { DEFAULT_MESSAGES, describeError, describeUntrustedError } from "./react/messages";
export type { Messages } from "./react/messages";
export type { Locale } from "./locales/locale";
export type { ColorScheme } from "./react/handler-options";
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
} from "./react/components";
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
} from "./react/components";
