// The components every auth product has, each in a module of its own (not in the provider's first page).
export { Protect, SignedIn, SignedOut } from "./signed-in";
export type { ProtectProps, ProtectRule, SignedInProps, SignedOutProps } from "./signed-in";
export { RedirectToSignIn } from "./redirect-to-sign-in";
export { UserButton } from "./user-button";
export type { UserButtonProps } from "./user-button";
export { SelectedTeamSwitcher } from "./team-switcher";
export { UserAvatar } from "./user-avatar";
export type { UserAvatarProps } from "./user-avatar";
export { SignInButton, SignUpButton } from "./auth-buttons";
export type { AuthButtonProps } from "./auth-buttons";
export type { SelectedTeamSwitcherProps } from "./team-switcher";
export { COMPONENT_STYLES, ComponentStyles } from "./theme";
export type { ComponentStyleProps } from "./theme";
export { DEFAULT_COMPONENT_TEXTS } from "./texts";
export type { ComponentTexts } from "./texts";
