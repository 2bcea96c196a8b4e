// The components every auth product has, each in a module of its own (not in the provider's first page).
export { Protect, SignedIn, SignedOut } from "./signed-in.js";
export type { ProtectProps, ProtectRule, SignedInProps, SignedOutProps } from "./signed-in.js";
export { RedirectToSignIn } from "./redirect-to-sign-in.js";
export { UserButton } from "./user-button.js";
export type { UserButtonProps } from "./user-button.js";
export { SelectedTeamSwitcher } from "./team-switcher.js";
export { UserAvatar } from "./user-avatar.js";
export { VerificationNotice } from "./verification-notice-slot.js";
export type { VerificationNoticeProps } from "./verification-notice-slot.js";
export type { UserAvatarProps } from "./user-avatar.js";
export { SignInButton, SignUpButton } from "./auth-buttons.js";
export type { AuthButtonProps } from "./auth-buttons.js";
export type { SelectedTeamSwitcherProps } from "./team-switcher.js";
export { COMPONENT_STYLES, ComponentStyles } from "./theme.js";
export type { ComponentStyleProps } from "./theme.js";
export { DEFAULT_COMPONENT_TEXTS } from "./texts.js";
export type { ComponentTexts } from "./texts.js";
