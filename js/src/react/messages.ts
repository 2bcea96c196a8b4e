import { createContext, useContext } from "react";
import type { VerificationCodeError } from "../errors";
import { ConnectionError, HttpStatusError } from "../http-errors";
import { AuthmwError, KnownError, isKnownError, type KnownErrorClass } from "../known-error";
import { OAuthCallbackError } from "../oauth-callback-error";
import { isPasskeyCancel } from "../passkey-support";

/**
 * Every text of the handler pages, in one table. Pass a part of it to <AuthHandler messages={...}>
 * to replace any text (the first step toward translations); functions take the values they name.
 */
export const DEFAULT_MESSAGES = {
  // Shared words
  or: "or",
  loading: "Loading…",
  continue: "Continue",
  goHome: "Go home",
  signIn: "Sign in",
  signOut: "Sign out",
  cancel: "Cancel",
  save: "Save",
  saving: "Saving…",
  saved: "Saved.",
  sending: "Sending…",
  email: "E-mail",
  password: "Password",
  showPassword: "Show password",
  hidePassword: "Hide password",
  show: "Show",
  hide: "Hide",
  /** The card's small line under the title, naming the project. */
  thisProject: "This project",
  toContinueTo: (project: string) => `to continue to ${project}`,

  // Field validation (shown under the field when a form is submitted)
  fieldRequired: "Fill in this field.",
  fieldInvalid: "Check the format of this field.",
  emailRequired: "Enter your e-mail address.",
  emailInvalid: "Enter an e-mail address such as name@example.com.",
  passwordRequired: "Enter your password.",
  newPasswordRequired: "Choose a new password.",
  currentPasswordRequired: "Enter your current password.",
  repeatPasswordRequired: "Repeat the new password.",
  passwordsDoNotMatch: "The two passwords do not match.",
  codeRequired: "Enter the code from the e-mail.",
  codeInvalid: "The code has 6 characters.",
  totpRequired: "Enter the 6-digit code of your authenticator app.",
  totpInvalid: "The code has 6 digits.",
  teamNameRequired: "Enter a name for the team.",
  urlInvalid: "Enter a full URL starting with https://.",

  // Sign-in and sign-up
  signInTitle: "Sign in",
  signUpTitle: "Create an account",
  signInSubtitle: "Welcome back! Sign in to continue.",
  signUpSubtitle: "Welcome! Fill in the details to get started.",
  signInButton: "Sign in",
  signInPending: "Signing in…",
  signUpButton: "Sign up",
  signUpPending: "Creating account…",
  noAccountYet: "No account yet?",
  createAccountLink: "Create an account",
  haveAccount: "Already have an account?",
  signInLink: "Sign in",
  forgotPasswordLink: "Forgot your password?",
  methodTabsLabel: "How to sign in",
  passwordTab: "Password",
  emailLinkTab: "E-mail link",
  signUpClosed: (project: string) => `${project} is not taking new sign-ups. If you already have an account, sign in.`,
  noMethodsEnabled: "This project has no sign-in method turned on. Ask its administrator to enable one.",
  signedInAs: "You are signed in as",

  // Magic link
  sendSignInLink: "Send sign-in link",
  magicLinkSent: (email: string) => `Check your inbox: we sent a sign-in link to ${email}.`,
  magicLinkCodeHint: "Open the link in the e-mail, or type the 6-character code from it here.",
  magicLinkCodeLabel: "Code from the e-mail",
  signInWithCode: "Sign in with code",
  useAnotherEmail: "Use another e-mail address",
  magicLinkUnverifiedAccount:
    "An account with this e-mail address exists, but the address is not verified yet: sign in with your password.",
  magicLinkCallbackTitle: "Signing in",
  signingYouIn: "Signing you in…",
  signInAgain: "Sign in again",
  continueWithProvider: (provider: string) => `Continue with ${provider}`,
  redirectingTo: (provider: string) => `Redirecting to ${provider}…`,
  oauthButtonsLabel: "Sign in with another account",
  oauthCallbackTitle: "Signing in",
  oauthNothingToFinish: "There is no sign-in to finish here: this page completes a sign-in started in this browser.",
  oauthDenied: "The sign-in was denied at the provider. Please try again.",
  oauthNotCompleted: "The sign-in could not be completed. Please try again.",
  signInLinkIncomplete: "This sign-in link is incomplete (no code).",

  // Multi-factor prompt
  mfaTitle: "Two-factor authentication",
  mfaIntro: "Enter the 6-digit code from your authenticator app.",
  mfaCodeLabel: "Authentication code",
  verify: "Verify",
  verifying: "Verifying…",
  mfaAttemptExpired: "This sign-in attempt has expired. Please sign in again.",

  // Forgot password and password reset
  forgotPasswordTitle: "Reset your password",
  forgotPasswordIntro: "Enter the e-mail address of your account and we will send you a link to choose a new password.",
  sendResetLink: "Send reset link",
  resetLinkSent: (email: string) =>
    `If an account signs in with ${email}, we sent it a link to reset the password. Check your inbox.`,
  backToSignIn: "Back to sign in",
  passwordResetTitle: "Choose a new password",
  checkingLink: "Checking your link…",
  newPassword: "New password",
  repeatNewPassword: "Repeat new password",
  setNewPassword: "Set new password",
  passwordResetDone: "Your password has been changed. Sign in with your new password.",
  requestNewLink: "Request a new link",
  resetLinkIncomplete: "This password reset link is incomplete (no code).",

  // E-mail verification
  emailVerificationTitle: "E-mail verification",
  verifyingEmail: "Verifying your e-mail…",
  emailVerified: "Your e-mail address is verified.",
  verificationLinkIncomplete: "This verification link is incomplete (no code).",
  tryAgain: "Try again",
  sendNewVerificationEmail: "Send a new verification e-mail",
  newVerificationEmailSent: "We sent a new verification e-mail. Check your inbox.",

  // Team invitation
  teamInvitationTitle: "Team invitation",
  checkingInvitation: "Checking your invitation…",
  invitationSignIn: "You have been invited to join a team. Sign in, or create an account, to accept the invitation.",
  invitedToTeam: "You have been invited to join this team:",
  join: "Join",
  joining: "Joining…",
  ignore: "Ignore",
  joinedTeam: (team: string) => `You joined ${team}.`,
  invitationIgnored: "You ignored the invitation. You can open the link again later.",
  invitationLinkIncomplete: "This invitation link is incomplete (no code).",

  // Sign-out, error and not-found pages
  signOutTitle: "Sign out?",
  signOutQuestion: "Do you want to sign out of this browser?",
  signingOutTitle: "Signing out",
  signingYouOut: "Signing you out…",
  errorTitle: "Something went wrong",
  unexpectedError: "An unexpected error occurred.",
  notFoundTitle: "Page not found",
  notFound: "There is no such page here.",

  // Account settings
  accountSettingsTitle: "Account settings",
  settingsNavLabel: "Account settings sections",
  backToApp: "Back to the app",
  signInToSeeSettings: "Sign in to see your account settings.",
  profileSection: "Profile",
  emailsSection: "E-mail addresses",
  passwordSection: "Password",
  passkeysSection: "Passkeys",
  twoFactorSection: "Two-factor authentication",
  connectedAccountsSection: "Connected accounts",
  noConnectedAccounts: "No accounts are connected.",
  connectedBadge: "Connected",
  connectAnotherAccount: "Connect another account",
  connectProvider: (provider: string) => `Connect ${provider}`,
  teamsSection: "Teams",
  dangerZoneSection: "Danger zone",
  displayName: "Display name",
  profileImageUrl: "Profile image URL",
  profileImageUrlHint: "A link to a square picture (https://…). Leave empty for none.",
  profileImageAlt: "Your profile image",
  couldNotLoadEmails: "Could not load your e-mail addresses.",
  primary: "primary",
  verified: "verified",
  notVerified: "not verified",
  sendVerificationEmail: "Send verification e-mail",
  verificationEmailSentTo: (email: string) => `We sent a verification e-mail to ${email}.`,
  makePrimary: "Make primary",
  nowPrimary: (email: string) => `${email} is now your primary e-mail.`,
  remove: "Remove",
  removeEmail: (email: string) => `Remove ${email}`,
  removedEmail: (email: string) => `Removed ${email}.`,
  addEmailLabel: "Add an e-mail address",
  addEmail: "Add e-mail",
  addedEmail: (email: string) => `Added ${email}.`,
  noPasswordYet: "Your account has no password yet. Set one to sign in with your e-mail and password.",
  currentPassword: "Current password",
  changePassword: "Change password",
  setPassword: "Set password",
  passwordChanged: "Your password has been changed. Your other sessions were signed out.",
  passwordSet: "Your password is set.",
  couldNotLoadTeams: "Could not load your teams.",
  noTeams: "You are not a member of any team.",
  unnamedTeam: "(unnamed team)",
  selected: "selected",
  select: "Select",
  leave: "Leave",
  leaveTeam: (team: string) => `Leave ${team}`,
  members: "Members:",
  you: "you",
  noName: "(no name)",
  yourNameInTeam: (team: string) => `Your name in ${team}`,
  saveName: "Save name",
  inviteToTeam: (team: string) => `Invite to ${team} (e-mail)`,
  sendInvitation: "Send invitation",
  invitationSent: (email: string) => `Invitation sent to ${email}.`,
  pendingInvitations: "Pending invitations",
  invitationUntil: (email: string, until: string) => `${email} (until ${until})`,
  revoke: "Revoke",
  revokeInvitation: (email: string) => `Revoke the invitation of ${email}`,
  newTeamName: "New team name",
  createTeam: "Create team",
  deleteAccountTitle: "Delete account",
  deleteAccountWarning: "Deleting your account removes it and all its data. This cannot be undone.",
  deleteAccount: "Delete account",
  confirmDeleteAccount: "Yes, delete my account",
  deleteAccountConfirmQuestion: "Are you sure? Press Escape to cancel.",
  signOutEverywhereHint: "Sign out of this browser.",

  // Passkeys
  passkeySignIn: "Sign in with a passkey",
  passkeySignInPending: "Waiting for your passkey…",
  passkeyWaiting: "Waiting for your passkey…",
  passkeysIntro: "Sign in with your fingerprint, face or screen lock instead of a password.",
  passkeyRegistered: "A passkey is set up for this account.",
  passkeyNone: "No passkey is set up yet.",
  addPasskey: "Add a passkey",
  replacePasskey: "Replace the passkey",
  removePasskey: "Remove the passkey",
  removing: "Removing…",
  passkeyAdded: "Passkey added. You can now sign in with it.",
  passkeyRemoved: "Passkey removed.",
  passkeyCancelled: "The passkey request was cancelled or timed out. Try again when you are ready.",
  passkeyAlreadyRegistered: "This authenticator already holds a passkey for this account.",
  passkeyBrowserRefused: (detail: string) => `Your browser could not use a passkey: ${detail}`,
  passkeyNotFound:
    "This passkey is not registered for any account here. Sign in another way, then add it in your account settings.",
  passkeysUnsupported: "This browser does not support passkeys.",

  // Two-factor authentication (TOTP)
  twoFactorOn: "Two-factor authentication is on: signing in asks for a code from your authenticator app.",
  twoFactorOff: "Add a second step to signing in: a 6-digit code from an authenticator app.",
  enableTwoFactor: "Turn on two-factor authentication",
  disableTwoFactor: "Turn off two-factor authentication",
  twoFactorScan: "Scan this QR code with your authenticator app, or type the key below into it. Then enter the 6-digit code it shows.",
  twoFactorQrLabel: "QR code for your authenticator app",
  twoFactorSecretLabel: "Key",
  twoFactorCodeLabel: "Code from the app",
  twoFactorConfirm: "Turn on",
  twoFactorConfirming: "Checking…",
  twoFactorEnabled: "Two-factor authentication is on.",
  twoFactorDisabled: "Two-factor authentication is off.",

  // Errors (what a page shows for a refusal of the service)
  errorEmailPasswordMismatch: "Wrong e-mail or password.",
  errorUserEmailAlreadyExists: "An account with this e-mail address already exists. Sign in instead.",
  errorPasswordTooShort: (min: number) => `The password is too short: use at least ${min} characters.`,
  errorPasswordTooLong: (max: number) => `The password is too long: use at most ${max} characters.`,
  errorPasswordRequirementsNotMet: "The password does not meet the project's requirements.",
  errorSignUpNotEnabled: "This project is not taking new sign-ups.",
  errorPasswordAuthenticationNotEnabled: "Signing in with a password is not enabled for this project.",
  errorPasskeyAuthenticationNotEnabled: "Signing in with a passkey is not enabled for this project.",
  errorMfaRequired: "This account requires multi-factor authentication: enter the code of your authenticator app.",
  errorInvalidTotpCode: "The TOTP code is invalid. Please try again.",
  oauthInvalidTotpCode: "Invalid TOTP code. Please try signing in again.",
  /** PASSWORD_CONFIRMATION_MISMATCH: on a password change, the current password given is wrong. */
  errorWrongCurrentPassword: "Your current password is wrong.",
  errorUserDoesNotHavePassword: "This account has no password yet; set one instead.",
  errorEmailAlreadyVerified: "This e-mail address is already verified.",
  errorRedirectUrlNotWhitelisted:
    "This site is not a trusted domain of the project, so the service will not send links to it.",
  errorContactChannelUsedBySomeoneElse: "Another account already signs in with this e-mail address.",
  errorTeamPermissionRequired: "You do not have the permission to do this in the team.",
  errorTeamMembershipAlreadyExists: "You are already a member of this team.",
  errorTeamNotFound: "This team no longer exists.",
  errorTeamMembershipNotFound: "You are not a member of this team (any more).",
  errorSchema: (detail: string) => `The service rejected the form: ${detail}`,
  errorOffline: "You appear to be offline. Check your connection and try again.",
  errorUnreachable: "Could not reach the authentication service. Please try again.",
  errorServer: "The authentication service had a problem. Please try again in a moment.",
  errorUnknown: "Something went wrong. Please try again.",

  // Codes and links that cannot be used; `what` is one of the *Noun texts below.
  codeExpired: (what: string) => `This ${what} has expired.`,
  codeAlreadyUsed: (what: string) => `This ${what} has already been used.`,
  codeMaxAttempts: (what: string) => `This ${what} was tried too many times.`,
  codeNotValid: (what: string) => `This ${what} is not valid.`,
  codeNoun: "code",
  passwordResetLinkNoun: "password reset link",
  signInLinkNoun: "sign-in link",
  invitationLinkNoun: "invitation link",
  verificationLinkNoun: "verification link",
  requestNewOne: "Request a new one.",
};

export type Messages = typeof DEFAULT_MESSAGES;

export const MessagesContext = createContext<Messages>(DEFAULT_MESSAGES);
MessagesContext.displayName = "AuthMessagesContext";

/** The handler pages' texts: the defaults with the `messages` given to <AuthHandler> on top. */
export const useMessages = (): Messages => useContext(MessagesContext);

/** The page's own sentence for a catalogue error it knows (a fixed text; details only as numbers), else null. */
function knownErrorText(error: unknown, m: Messages): string | null {
  if (isKnownError(error, "EMAIL_PASSWORD_MISMATCH")) return m.errorEmailPasswordMismatch;
  if (isKnownError(error, "USER_EMAIL_ALREADY_EXISTS")) return m.errorUserEmailAlreadyExists;
  if (isKnownError(error, "PASSWORD_TOO_SHORT")) return m.errorPasswordTooShort(error.minLength ?? 8);
  if (isKnownError(error, "PASSWORD_TOO_LONG")) return m.errorPasswordTooLong(error.maxLength ?? 70);
  if (isKnownError(error, "PASSWORD_REQUIREMENTS_NOT_MET")) return m.errorPasswordRequirementsNotMet;
  if (isKnownError(error, "SIGN_UP_NOT_ENABLED")) return m.errorSignUpNotEnabled;
  if (isKnownError(error, "PASSWORD_AUTHENTICATION_NOT_ENABLED")) return m.errorPasswordAuthenticationNotEnabled;
  if (isKnownError(error, "PASSKEY_AUTHENTICATION_NOT_ENABLED")) return m.errorPasskeyAuthenticationNotEnabled;
  if (isKnownError(error, "MULTI_FACTOR_AUTHENTICATION_REQUIRED")) return m.errorMfaRequired;
  if (isKnownError(error, "INVALID_TOTP_CODE")) return m.errorInvalidTotpCode;
  // The service's only use of this code: a password change whose old password is wrong.
  if (isKnownError(error, "PASSWORD_CONFIRMATION_MISMATCH")) return m.errorWrongCurrentPassword;
  if (isKnownError(error, "USER_DOES_NOT_HAVE_PASSWORD")) return m.errorUserDoesNotHavePassword;
  if (isKnownError(error, "EMAIL_ALREADY_VERIFIED")) return m.errorEmailAlreadyVerified;
  if (isKnownError(error, "REDIRECT_URL_NOT_WHITELISTED")) return m.errorRedirectUrlNotWhitelisted;
  if (isKnownError(error, "CONTACT_CHANNEL_ALREADY_USED_FOR_AUTH_BY_SOMEONE_ELSE")) return m.errorContactChannelUsedBySomeoneElse;
  if (isKnownError(error, "TEAM_PERMISSION_REQUIRED")) return m.errorTeamPermissionRequired;
  if (isKnownError(error, "TEAM_MEMBERSHIP_ALREADY_EXISTS")) return m.errorTeamMembershipAlreadyExists;
  if (isKnownError(error, "TEAM_NOT_FOUND")) return m.errorTeamNotFound;
  if (isKnownError(error, "TEAM_MEMBERSHIP_NOT_FOUND")) return m.errorTeamMembershipNotFound;
  if (isKnownError(error, "OAUTH_PROVIDER_ACCESS_DENIED")) return m.oauthDenied;
  if (isKnownError(error, "VERIFICATION_ERROR")) return verificationCodeMessage(error, m.codeNoun, m);
  return null;
}

/** The sentence a handler page shows for a failed call. */
export function describeError(error: unknown, m: Messages = DEFAULT_MESSAGES): string {
  const known = knownErrorText(error, m);
  if (known !== null) return known;
  if (isKnownError(error, "SCHEMA_ERROR")) return m.errorSchema(error.message);
  if (error instanceof KnownError) return error.message;
  // Plain-text refusals of the service (e.g. "Magic link is not enabled for this project").
  if (error instanceof HttpStatusError) {
    if (error.status >= 400 && error.status < 500 && isShortText(error.body)) return error.body.trim();
    return error.status >= 500 ? m.errorServer : m.errorUnknown;
  }
  if (error instanceof ConnectionError) return error.offline ? m.errorOffline : m.errorUnreachable;
  if (error instanceof AuthmwError) return error.message;
  return m.errorUnknown;
}

/**
 * The sentence for an error that arrived in a URL anyone can write (the service's redirect to
 * {handler}/error, an OAuth callback): never text from the URL. A catalogue code gets the page's
 * own sentence, else the catalogue's message when it has no placeholders; a provider's
 * "access_denied" gets `oauthDenied`; anything else `fallback`. The error's message and details
 * (the URL's `message`, `details`, `error_description`) are never shown.
 */
export function describeUntrustedError(error: unknown, m: Messages = DEFAULT_MESSAGES, fallback: string = m.unexpectedError): string {
  if (error instanceof OAuthCallbackError) return error.error === "access_denied" ? m.oauthDenied : fallback;
  if (error instanceof KnownError) {
    if (error.code === "UNSUPPORTED_ERROR") return fallback;
    // The same class without the URL's message and details.
    const cls = error.constructor as KnownErrorClass;
    const bare = new cls();
    const known = knownErrorText(bare, m);
    if (known !== null) return known;
    return /[{}]/.test(cls.template) ? fallback : cls.template;
  }
  if (error instanceof ConnectionError) return error.offline ? m.errorOffline : m.errorUnreachable;
  return fallback;
}

const isShortText = (body: string) =>
  body.trim().length > 0 && body.length < 300 && !body.trim().startsWith("{") && !body.includes("<");

/** The sentence for a code that cannot be used, naming what it was (one of the *Noun texts). */
export function verificationCodeMessage(error: VerificationCodeError, what: string, m: Messages = DEFAULT_MESSAGES): string {
  if (isKnownError(error, "VERIFICATION_CODE_EXPIRED")) return m.codeExpired(what);
  if (isKnownError(error, "VERIFICATION_CODE_ALREADY_USED")) return m.codeAlreadyUsed(what);
  if (isKnownError(error, "VERIFICATION_CODE_MAX_ATTEMPTS_REACHED")) return m.codeMaxAttempts(what);
  return m.codeNotValid(what);
}

/** describeError, except that an unusable code is named (`what`: "password reset link", ...). */
export function describeCodeError(error: unknown, what: string, m: Messages): string {
  return isKnownError(error, "VERIFICATION_ERROR") ? verificationCodeMessage(error, what, m) : describeError(error, m);
}

/** The sentence for a failed passkey ceremony: cancelled, refused by the browser, unknown passkey, or a refusal of the service. */
export function describePasskeyError(error: unknown, m: Messages = DEFAULT_MESSAGES): string {
  if (isPasskeyCancel(error)) return m.passkeyCancelled;
  if (isKnownError(error, "PASSKEY_WEBAUTHN_ERROR")) {
    const code = (error.details as { code?: unknown }).code;
    if (code === "ERROR_AUTHENTICATOR_PREVIOUSLY_REGISTERED" || code === "InvalidStateError") return m.passkeyAlreadyRegistered;
    return m.passkeyBrowserRefused(error.message);
  }
  if (isKnownError(error, "PASSKEY_AUTHENTICATION_FAILED") && error.message === "Passkey not found") return m.passkeyNotFound;
  return describeError(error, m);
}
