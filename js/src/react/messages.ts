import { createContext, useContext } from "react";
import type { VerificationCodeError } from "../errors.js";
import { ConnectionError, HttpStatusError } from "../http-errors.js";
import { KnownError, isKnownError, type KnownErrorClass } from "../known-error.js";
import { OAuthCallbackError } from "../oauth-callback-error.js";
import { isPasskeyCancel } from "../passkey-support.js";

/**
 * Every text of the handler pages, in one table. Pass a part of it to <AuthHandler messages={...}>
 * to replace any text (the first step toward translations); functions take the values they name.
 */
export const DEFAULT_MESSAGES = {
  /**
   * The BCP 47 tag of these texts ("de"): the pages' `lang` attribute, and the locale their dates,
   * numbers and lists are written in. Empty, as in English: no attribute, the browser's locale.
   */
  lang: "",
  // Shared words
  or: "or",
  loading: "Loading…",
  continue: "Continue",
  goHome: "Go home",
  signIn: "Sign in",
  signOut: "Sign out",
  cancel: "Cancel",
  save: "Save",
  change: "Change",
  add: "Add",
  create: "Create",
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
  alreadySignedInTitle: "You are already signed in",

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
  // The question a sign-in link's page asks before it uses the link (one click: no other site, nor
  // a mail scanner opening the link, signs anyone in)
  magicLinkConfirmTitle: "Sign in with this link?",
  magicLinkConfirmText: "This link signs you in to the account it was sent for. Continue only if you asked for it yourself.",
  /** The title of a sign-in page (link, OAuth callback) whose sign-in failed. */
  signInFailedTitle: "Could not sign you in",
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
  emailVerifyConfirmTitle: "Verify your e-mail address?",
  emailVerifyConfirmText: "This link confirms that the e-mail address it was sent to is yours.",
  emailVerifiedTitle: "E-mail verified",
  emailVerificationFailedTitle: "Verification failed",
  verifyingEmail: "Verifying your e-mail…",
  emailVerified: "Your e-mail address is verified.",
  verificationLinkIncomplete: "This verification link is incomplete (no code).",
  tryAgain: "Try again",
  sendNewVerificationEmail: "Send a new verification e-mail",
  newVerificationEmailSent: "We sent a new verification e-mail. Check your inbox.",

  // Onboarding ({handler}/onboarding): a restricted user (API 2.8) before they may continue
  onboardingVerifyTitle: "Verify your e-mail",
  onboardingVerifyText: (email: string) =>
    `Before you continue, verify ${email}. Open the link in the e-mail we sent you, or paste its code here.`,
  onboardingCodeLabel: "Code or link from the e-mail",
  onboardingVerifyButton: "Verify",
  onboardingVerifying: "Verifying…",
  onboardingSendAgain: "Send the e-mail again",
  onboardingCheckAgain: "I opened the link",
  onboardingNotVerifiedYet: "Your e-mail is not verified yet. Open the link in the e-mail, or paste its code above.",
  /** Above the form of a user without an e-mail address (titled addEmailLabel, its button sendVerificationEmail). */
  onboardingNoEmail: "Your account has no e-mail address yet. Add one and we will send it a verification e-mail.",
  onboardingDoneTitle: "You're all set",
  onboardingDone: "Your e-mail address is verified. You can continue now.",
  onboardingRestrictedTitle: "Your account is restricted",
  onboardingRestrictedText: "An administrator has restricted your account. Contact support if you think this is a mistake.",
  /** Above the administrator's own words (restricted_by_admin_reason). */
  onboardingReasonLabel: "The administrator's reason:",
  onboardingIncompleteTitle: "Finish setting up your account",
  onboardingIncompleteText: "Your account is not ready yet. Contact support if you think this is a mistake.",
  onboardingSignInText: "Sign in to finish setting up your account.",

  // Team invitation
  teamInvitationTitle: "Team invitation",
  /** The title of a page whose link (reset, invitation) cannot be used. */
  linkFailedTitle: "This link cannot be used",
  checkingInvitation: "Checking your invitation…",
  // Signed out, the service names neither the team nor who invited (its details call needs a
  // signed-in user, and an invitation records no inviter): the page says so instead of guessing.
  invitationSignIn: "You have been invited to join a team. Sign in, or create an account, to see which team invited you and to accept.",
  invitedToTeam: "You have been invited to join this team:",
  join: "Join",
  joining: "Joining…",
  ignore: "Ignore",
  joinedTeam: (team: string) => `You joined ${team}.`,
  invitationIgnored: "You ignored the invitation. You can open the link again later.",
  invitationLinkIncomplete: "This invitation link is incomplete (no code).",

  // The CLI sign-in confirmation page ({handler}/cli-auth-confirm)
  cliAuthTitle: "Sign in to a command-line tool?",
  cliAuthSignIn: "A command-line tool asks to sign in to your account. Sign in, then confirm here.",
  cliAuthQuestion: "A command-line tool asks to sign in as you. Confirm only if you started it in your own terminal: the tool gets access to your account.",
  cliAuthConfirm: "Sign in the tool",
  cliAuthConfirming: "Signing the tool in…",
  cliAuthCancel: "Cancel",
  cliAuthDone: "The command-line tool is signed in. You can close this page and go back to your terminal.",
  cliAuthCancelled: "The command-line tool is not signed in. You can close this page.",
  cliAuthLinkIncomplete: "This sign-in link is incomplete (no login code). Start again in your terminal.",
  cliAuthLinkNoLonger: "This sign-in link expired or was already used. Start again in your terminal.",
  checkingCliLink: "Checking the sign-in link…",

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
  connect: "Connect",
  couldNotLoadProviderAccounts: "Could not load your connected accounts.",
  /** The provider account's row: "Google account", then its e-mail. */
  providerAccountTitle: (provider: string) => `${provider} account`,
  providerAccountUseToSignIn: "Use to sign in",
  providerAccountUseForApps: "Let this app use the account",
  providerAccountUseForAppsHint: "This app may act on your behalf at the provider (for example, read your calendar).",
  providerAccountRemove: "Remove",
  providerAccountRemoveLabel: (provider: string, account: string) => `Remove ${provider} account ${account}`,
  providerAccountRemoveQuestion: (provider: string) => `Remove this ${provider} account? You can connect it again later.`,
  providerAccountConfirmRemove: "Remove account",
  providerAccountRemoved: (provider: string) => `The ${provider} account was removed.`,
  providerAccountSignInOn: (provider: string) => `You can now sign in with ${provider}.`,
  providerAccountSignInOff: (provider: string) => `You can no longer sign in with ${provider}.`,
  providerAccountSaved: "Your change was saved.",
  /** Removing (or turning sign-in off for) the only way the user signs in; refused before any call. */
  errorLastSignInMethod: "This is your only way to sign in. Set a password or connect another account first.",
  /** A second account of the same provider may not also sign the user in. */
  errorProviderSignInTaken: "Another account of this provider already signs you in. Turn it off there first.",
  notificationsSection: "Notifications",
  notificationsIntro: "Choose which e-mails you receive from this app.",
  couldNotLoadNotifications: "Could not load your notification settings.",
  notificationCategoryTransactional: "Account and security e-mails",
  notificationCategoryMarketing: "News and offers",
  notificationCategoryOther: (name: string) => name,
  notificationAlwaysOn: "Always on: these e-mails sign you in and keep your account safe.",
  notificationTurnedOn: (category: string) => `You will receive ${category.toLowerCase()}.`,
  notificationTurnedOff: (category: string) => `You will no longer receive ${category.toLowerCase()}.`,
  teamsSection: "Teams",
  settingsSectionNotFound: "This part of your account settings does not exist, or is not available here.",
  sessionsSection: "Sessions",
  sessionsIntro: "The browsers and devices signed in to your account. End any you do not recognise.",
  couldNotLoadSessions: "Could not load your sessions.",
  thisSession: "This browser",
  otherSession: "Another browser or device",
  currentBadge: "current",
  impersonationBadge: "administrator",
  lastUsed: (when: string) => `Last used ${when}`,
  revokeSession: "End session",
  revokeSessionLabel: (when: string) => `End session, last used ${when}`,
  sessionRevoked: "The session has ended.",
  revokeOtherSessions: "End all other sessions",
  otherSessionsRevoked: "Every other session has ended.",
  apiKeysSection: "API keys",
  apiKeysIntro: "Keys let a script or another service call this app as you. Give each one a name and revoke any you no longer use.",
  teamApiKeysTitle: "Team API keys",
  teamApiKeysIntro: "Keys that call this app as the team, for the team's scripts and integrations.",
  couldNotLoadApiKeys: "Could not load the API keys.",
  noApiKeys: "No API keys yet.",
  newApiKey: "New API key",
  apiKeyDescription: "What is it for?",
  apiKeyDescriptionHint: "For example “Deploy script”. Shown in this list.",
  apiKeyExpiry: "Expires",
  apiKeyNeverExpires: "Never",
  apiKeyExpiresInDays: (days: number) => `In ${days} days`,
  createApiKey: "Create key",
  apiKeyCreatedTitle: "Copy your new key now",
  apiKeyCreatedHint: "This is the only time the key is shown. Keep it somewhere safe, such as a password manager or your deployment's secrets.",
  copyApiKey: "Copy key",
  apiKeyCopied: "Copied.",
  apiKeyDone: "Done",
  apiKeyEndsWith: (lastFour: string) => `ends in …${lastFour}`,
  apiKeyCreatedOn: (when: string) => `created ${when}`,
  apiKeyExpiresOn: (when: string) => `expires ${when}`,
  apiKeyNoExpiry: "never expires",
  apiKeyRevokedBadge: "revoked",
  apiKeyExpiredBadge: "expired",
  revokeApiKey: "Revoke",
  revokeApiKeyLabel: (name: string) => `Revoke the API key ${name}`,
  confirmRevokeApiKey: (name: string) => `Revoke “${name}”? Anything that uses it stops working at once.`,
  apiKeyRevoked: "The key has been revoked.",
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
  passwordIsSet: "You sign in with a password.",
  profileDetails: "Name and picture",
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
  selected: "current team",
  select: "Make current",
  leave: "Leave",
  leaveTeam: (team: string) => `Leave ${team}`,
  /** `count` and `names` are already formatted for the reader's locale. */
  teamMembers: (count: number, formattedCount: string, names: string) =>
    count === 1 ? "Only you so far." : `${formattedCount} members: ${names}`,
  you: "you",
  noName: "(no name)",
  yourNameInTeam: (team: string) => `Your name in ${team}`,
  saveName: "Save name",
  inviteToTeam: (team: string) => `Invite someone to ${team}`,
  invite: "Invite",
  sendInvitation: "Send invitation",
  invitationSent: (email: string) => `Invitation sent to ${email}.`,
  pendingInvitations: "Pending invitations",
  invitationUntil: (email: string, until: string) => `${email} (until ${until})`,
  revoke: "Revoke",
  revokeInvitation: (email: string) => `Revoke the invitation of ${email}`,
  /** The row that opens the new-team form; the form's field is `newTeamName`. */
  createTeamTitle: "Create a team",
  newTeamName: "Team name",
  createTeam: "Create team",
  // Managing a team (account settings, one part per team, each for the members allowed to)
  teamNameTitle: "Team name",
  renameTeam: "Rename",
  saveTeamName: "Save team name",
  teamPicture: "Team picture",
  teamPictureAlt: (team: string) => `Picture of ${team}`,
  members: "Members",
  membersOf: (team: string) => `Members of ${team}`,
  couldNotLoadMembers: "Could not load the team's members.",
  yourPermissions: "Your permissions",
  /** A permission's name for people: the five system ones, and any other id as it is. */
  permissionName: (id: string) =>
    ({
      $update_team: "Edit the team",
      $delete_team: "Delete the team",
      $read_members: "See the members",
      $remove_members: "Remove members",
      $invite_members: "Invite members",
      $manage_api_keys: "Manage the team's API keys",
    })[id] ?? id,
  removeMember: (name: string) => `Remove ${name} from the team`,
  confirmRemoveMember: (name: string, team: string) => `Remove ${name} from ${team}? They lose access to the team at once.`,
  removeMemberConfirm: "Yes, remove",
  memberRemoved: (name: string) => `${name} is no longer a member.`,
  deleteTeamTitle: "Delete team",
  deleteTeamWarning: (team: string) => `Deleting ${team} removes it for all its members. This cannot be undone.`,
  deleteTeam: "Delete team",
  typeTeamNameToDelete: (team: string) => `Type the team's name, ${team}, to confirm`,
  teamNameMismatch: "The name does not match the team's name.",
  deleteTeamConfirm: "Delete this team",
  deleting: "Deleting…",
  teamDeleted: (team: string) => `${team} has been deleted.`,
  // Choosing a picture: a file, cut to a square and made small in the browser before it is sent
  picture: "Picture",
  yourPicture: "Your picture",
  noPicture: "No picture yet",
  hasPicture: "Picture set",
  pictureFile: "Image file",
  pictureFileHint: "A PNG, JPEG, GIF or WebP image; it is cut to a square and made small before it is sent.",
  pictureUnreadable: "This file could not be read as an image. Choose a PNG, JPEG, GIF or WebP image.",
  pictureRequired: "Choose an image file first.",
  picturePreview: "Preview of the new picture",
  pictureZoom: "Zoom",
  pictureHorizontal: "Left and right",
  pictureVertical: "Up and down",
  savePicture: "Save picture",
  removePicture: "Remove picture",
  pictureSaved: "Picture saved.",
  pictureRemoved: "Picture removed.",
  // The team-creation page ({handler}/team-creation)
  teamCreationTitle: "Create a team",
  teamCreationSubtitle: "Work together: a team shares its members, permissions and settings.",
  signInToCreateTeam: "Sign in to create a team.",
  teamCreationDisabled: "This app does not let users create teams. Ask an administrator.",
  teamCreated: (team: string) => `${team} has been created and is now your current team.`,
  manageTeams: "Manage your teams",
  deleteAccountTitle: "Delete account",
  deleteAccountWarning: "Deleting your account removes it and all its data. This cannot be undone.",
  deleteAccount: "Delete account",
  confirmDeleteAccount: "Yes, delete my account",
  deleteAccountConfirmQuestion: "Are you sure? Press Escape to cancel.",

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
  twoFactorEnabled: "Done: your next sign-in asks for a code from the app.",
  twoFactorDisabled: "Two-factor authentication is off.",

  // Errors: what a page shows for a refusal of the service (errorText maps every catalogue code
  // a page can meet to one of these; never the service's own wording).
  errorEmailPasswordMismatch: "Wrong e-mail or password.",
  errorUserEmailAlreadyExists: "An account with this e-mail address already exists. Sign in instead.",
  errorPasswordTooShort: (min: number) => `The password is too short: use at least ${min} characters.`,
  errorPasswordTooLong: (max: number) => `The password is too long: use at most ${max} characters.`,
  errorPasswordRequirementsNotMet: "The password does not meet the project's requirements.",
  errorSignUpNotEnabled: "This project is not taking new sign-ups.",
  errorSignUpRejected: "Your sign-up was not accepted. If you think this is a mistake, contact the site's support.",
  errorBotCheck: "We could not confirm that you are a person. Reload the page and try again.",
  errorPasswordAuthenticationNotEnabled: "Signing in with a password is not enabled for this project.",
  errorPasskeyAuthenticationNotEnabled: "Signing in with a passkey is not enabled for this project.",
  errorMfaRequired: "This account requires multi-factor authentication: enter the code of your authenticator app.",
  errorInvalidTotpCode: "The code is not correct. Check your authenticator app and try again.",
  oauthInvalidTotpCode: "The code is not correct. Please sign in again.",
  /** PASSWORD_CONFIRMATION_MISMATCH: on a password change, the current password given is wrong. */
  errorWrongCurrentPassword: "Your current password is wrong.",
  errorUserDoesNotHavePassword: "This account has no password yet; set one instead.",
  errorEmailAlreadyVerified: "This e-mail address is already verified.",
  errorRedirectUrlNotWhitelisted: "This site may not receive links from the sign-in service yet. Please tell the site's owner.",
  errorContactChannelUsedBySomeoneElse: "Another account already signs in with this e-mail address.",
  errorEmailNotUsable: "This e-mail address cannot be used here. Use the primary e-mail address of your account.",
  errorTeamPermissionRequired: "You do not have the permission to do this in the team.",
  errorTeamMembershipAlreadyExists: "You are already a member of this team.",
  errorTeamNotFound: "This team no longer exists.",
  errorTeamMembershipNotFound: "You are not a member of this team (any more).",
  errorNotPermitted: "You do not have the permission to do this.",
  errorRestricted: "Finish setting up your account first (for example, verify your e-mail address), then try again.",
  errorUserNotFound: "This account no longer exists. Sign in with another account, or create one.",
  errorSessionEnded: "Your session has ended. Sign in again to continue.",
  errorCannotEndCurrentSession: "This is the session you are using: sign out instead.",
  errorApiKeyNotFound: "This API key was not found, or you may not manage this team's keys. Reload the page and try again.",
  errorPasskeyFailed: "The passkey could not be used. Try again, or sign in another way.",
  errorOAuthAccountTaken: "This provider account is already connected to another user here. Sign in with it, or use another account.",
  errorOAuthAlreadyConnected: "Your account is already connected to another account of this provider.",
  errorOAuthTimeout: "The sign-in took too long. Please sign in again.",
  errorOAuthUnavailable: "The provider is not available right now. Try again in a few minutes.",
  errorOAuthNotEnabled: "This way of signing in is not available. Choose another one.",
  errorOAuthScope: "The connected account does not allow what this site needs. Connect it again and allow the access.",
  errorProviderRejected: "The provider no longer accepts this connection. Sign in with it again.",
  errorCrossSite: "The request was refused because it came from another site. Reload this page and try again.",
  /** A refusal of what was sent (the service's validation); its own text is never shown. */
  errorRejected: "The request could not be processed. Check what you entered and try again.",
  /** The site's set-up is wrong (keys, project, trusted domains): nothing the person can fix. */
  errorSetup: "Signing in is not set up correctly on this site. Please try again later, or tell the site's owner.",
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

/** The texts of DEFAULT_MESSAGES that are plain sentences (not functions). */
type Sentence = { [K in keyof Messages]: Messages[K] extends string ? K : never }[keyof Messages];

/**
 * Every catalogue code a page can meet (parents stand for their children: an error matches the
 * nearest code of its class chain), by the sentence it gets; one line per sentence, codes
 * separated by spaces. Codes only the admin and server tiers meet (API keys, permission
 * definitions, e-mail templates, analytics) get errorUnknown.
 */
const SENTENCES: readonly (readonly [Sentence, string])[] = [
  ["errorEmailPasswordMismatch", "EMAIL_PASSWORD_MISMATCH"],
  ["errorUserEmailAlreadyExists", "USER_EMAIL_ALREADY_EXISTS"],
  ["errorPasswordRequirementsNotMet", "PASSWORD_REQUIREMENTS_NOT_MET"],
  ["errorSignUpNotEnabled", "SIGN_UP_NOT_ENABLED"],
  ["errorSignUpRejected", "SIGN_UP_REJECTED"],
  ["errorBotCheck", "BOT_CHALLENGE_REQUIRED BOT_CHALLENGE_FAILED"],
  ["errorPasswordAuthenticationNotEnabled", "PASSWORD_AUTHENTICATION_NOT_ENABLED"],
  ["errorPasskeyAuthenticationNotEnabled", "PASSKEY_AUTHENTICATION_NOT_ENABLED"],
  ["errorMfaRequired", "MULTI_FACTOR_AUTHENTICATION_REQUIRED"],
  ["errorInvalidTotpCode", "INVALID_TOTP_CODE"],
  // The service's only use of this code: a password change whose old password is wrong.
  ["errorWrongCurrentPassword", "PASSWORD_CONFIRMATION_MISMATCH"],
  ["errorUserDoesNotHavePassword", "USER_DOES_NOT_HAVE_PASSWORD"],
  ["errorEmailAlreadyVerified", "EMAIL_ALREADY_VERIFIED"],
  ["errorRedirectUrlNotWhitelisted", "REDIRECT_URL_NOT_WHITELISTED"],
  ["errorContactChannelUsedBySomeoneElse", "CONTACT_CHANNEL_ALREADY_USED_FOR_AUTH_BY_SOMEONE_ELSE"],
  ["errorEmailNotUsable", "EMAIL_NOT_ASSOCIATED_WITH_USER EMAIL_IS_NOT_PRIMARY_EMAIL"],
  ["errorTeamPermissionRequired", "TEAM_PERMISSION_REQUIRED TEAM_PERMISSION_NOT_FOUND"],
  ["errorTeamMembershipAlreadyExists", "TEAM_MEMBERSHIP_ALREADY_EXISTS"],
  ["errorTeamNotFound", "TEAM_NOT_FOUND"],
  ["errorTeamMembershipNotFound", "TEAM_MEMBERSHIP_NOT_FOUND"],
  ["errorNotPermitted", "PROJECT_PERMISSION_REQUIRED"],
  ["errorRestricted", "RESTRICTED_USER_NOT_ALLOWED TEAM_INVITATION_RESTRICTED_USER_NOT_ALLOWED"],
  ["errorUserNotFound", "USER_NOT_FOUND USER_ID_DOES_NOT_EXIST"],
  ["errorSessionEnded", "SESSION_AUTHENTICATION_ERROR REFRESH_TOKEN_ERROR USER_AUTHENTICATION_REQUIRED CANNOT_GET_OWN_USER_WITHOUT_USER"],
  ["errorCannotEndCurrentSession", "CANNOT_DELETE_CURRENT_SESSION"],
  ["errorApiKeyNotFound", "API_KEY_NOT_FOUND"],
  ["errorProviderRejected", "PROVIDER_REJECTED"],
  ["errorPasskeyFailed", "PASSKEY_REGISTRATION_FAILED PASSKEY_AUTHENTICATION_FAILED PASSKEY_WEBAUTHN_ERROR"],
  ["oauthDenied", "OAUTH_PROVIDER_ACCESS_DENIED"],
  ["oauthNotCompleted", "INVALID_AUTHORIZATION_CODE OAUTH_CONNECTION_NOT_CONNECTED_TO_USER"],
  ["errorOAuthAccountTaken", "OAUTH_CONNECTION_ALREADY_CONNECTED_TO_ANOTHER_USER OAUTH_PROVIDER_ACCOUNT_ID_ALREADY_USED_FOR_SIGN_IN"],
  ["errorOAuthAlreadyConnected", "USER_ALREADY_CONNECTED_TO_ANOTHER_OAUTH_CONNECTION"],
  ["errorOAuthTimeout", "OUTER_OAUTH_TIMEOUT"],
  ["errorOAuthUnavailable", "OAUTH_PROVIDER_TEMPORARILY_UNAVAILABLE"],
  ["errorOAuthNotEnabled", "OAUTH_PROVIDER_NOT_FOUND_OR_NOT_ENABLED"],
  ["errorOAuthScope", "OAUTH_CONNECTION_DOES_NOT_HAVE_REQUIRED_SCOPE"],
  ["errorCrossSite", "CROSS_SITE_REQUEST_REFUSED"],
  ["errorRejected", "SCHEMA_ERROR BODY_PARSING_ERROR ALL_OVERLOADS_FAILED"],
  [
    "errorSetup",
    "PROJECT_AUTHENTICATION_ERROR CURRENT_PROJECT_NOT_FOUND BRANCH_DOES_NOT_EXIST PROJECT_NOT_FOUND ANONYMOUS_AUTHENTICATION_NOT_ALLOWED " +
      "REQUIRES_CUSTOM_EMAIL_SERVER INVALID_OAUTH_CLIENT_ID_OR_SECRET INVALID_SCOPE INVALID_SHARED_OAUTH_PROVIDER_ID " +
      "INVALID_STANDARD_OAUTH_PROVIDER_ID OAUTH_EXTRA_SCOPE_NOT_AVAILABLE_WITH_SHARED_OAUTH_KEYS OAUTH_ACCESS_TOKEN_NOT_AVAILABLE_WITH_SHARED_OAUTH_KEYS",
  ],
];

let byCode: Map<string, Sentence> | undefined;

/** The sentence (its name in Messages) of a catalogue code, without its parents; undefined when it has none. */
export function sentenceOfCode(code: string): Sentence | undefined {
  byCode ??= new Map(SENTENCES.flatMap(([key, codes]) => codes.split(" ").map((c) => [c, key] as const)));
  return byCode.get(code);
}

/** The codes of an error's class chain, nearest first. */
function codeChain(error: KnownError): string[] {
  const codes: string[] = [];
  for (let cls = error.constructor as KnownErrorClass | null; cls && cls !== (KnownError as unknown); cls = Object.getPrototypeOf(cls)) {
    if (Object.prototype.hasOwnProperty.call(cls, "code")) codes.push(cls.code);
  }
  return codes;
}

/**
 * What a person reads for a catalogue error: the page's own sentence for its code (or the nearest
 * parent's), numbers from its details at most; `what` names the thing a verification error is
 * about ("sign-in link"). Never the service's message. Null for a code no page meets.
 */
function knownErrorText(error: KnownError, m: Messages, what: string): string | null {
  if (isKnownError(error, "PASSWORD_TOO_SHORT")) return m.errorPasswordTooShort(Number(error.minLength) || 8);
  if (isKnownError(error, "PASSWORD_TOO_LONG")) return m.errorPasswordTooLong(Number(error.maxLength) || 70);
  if (isKnownError(error, "VERIFICATION_ERROR")) return verificationCodeMessage(error, what, m);
  for (const code of codeChain(error)) {
    const key = sentenceOfCode(code);
    if (key) return m[key];
  }
  return null;
}

/**
 * The one mapping from an error to what a person reads, which every handler page uses: a
 * catalogue error gets the page's own sentence for its code (never the service's wording or
 * validation text, never the code); the network and the service's plain-text refusals their
 * sentences; anything else errorUnknown. `what` names what a verification error is about.
 */
export function describeError(error: unknown, m: Messages = DEFAULT_MESSAGES, what: string = m.codeNoun): string {
  if (error instanceof KnownError) return knownErrorText(error, m, what) ?? m.errorUnknown;
  // Plain-text refusals of the service (e.g. "Magic link is not enabled for this project").
  if (error instanceof HttpStatusError) {
    if (error.status >= 400 && error.status < 500 && isPlainSentence(error.body)) return error.body.trim();
    return error.status >= 500 ? m.errorServer : m.errorUnknown;
  }
  if (error instanceof ConnectionError) return error.offline ? m.errorOffline : m.errorUnreachable;
  if (error instanceof OAuthCallbackError) return error.error === "access_denied" ? m.oauthDenied : m.oauthNotCompleted;
  // Not the service's: the package's own (a setting missing, a bug). The person reads the
  // generic sentence; the developer finds the real one in the console.
  if (typeof console !== "undefined") console.error("authmw:", error);
  return m.errorUnknown;
}

/**
 * The sentence for an error that arrived in a URL anyone can write (the service's redirect to
 * {handler}/error, an OAuth callback): the page's own sentence for its catalogue code, else
 * `fallback`; a provider's "access_denied" gets `oauthDenied`. The URL's `message`, `details`
 * and `error_description` are never read.
 */
export function describeUntrustedError(error: unknown, m: Messages = DEFAULT_MESSAGES, fallback: string = m.unexpectedError): string {
  if (error instanceof OAuthCallbackError) return error.error === "access_denied" ? m.oauthDenied : fallback;
  if (error instanceof KnownError) {
    // The same class without the URL's message and details.
    const cls = error.constructor as KnownErrorClass;
    const text = knownErrorText(new cls(), m, m.codeNoun);
    // "Check what you entered" does not fit a page that asked for nothing.
    return text && text !== m.errorRejected ? text : fallback;
  }
  if (error instanceof ConnectionError) return error.offline ? m.errorOffline : m.errorUnreachable;
  return fallback;
}

/** A short one-line sentence of the service, not a validation report, a path or markup. */
const isPlainSentence = (body: string) => /^[\w ,.'()-]{1,200}$/.test(body.trim()) && !/\b(body|query|headers)\./.test(body);

/** The sentence for a code that cannot be used, naming what it was (one of the *Noun texts). */
export function verificationCodeMessage(error: VerificationCodeError, what: string, m: Messages = DEFAULT_MESSAGES): string {
  if (isKnownError(error, "VERIFICATION_CODE_EXPIRED")) return m.codeExpired(what);
  if (isKnownError(error, "VERIFICATION_CODE_ALREADY_USED")) return m.codeAlreadyUsed(what);
  if (isKnownError(error, "VERIFICATION_CODE_MAX_ATTEMPTS_REACHED")) return m.codeMaxAttempts(what);
  return m.codeNotValid(what);
}

/** describeError, naming an unusable or malformed code (`what`: "password reset link", ...). */
export function describeCodeError(error: unknown, what: string, m: Messages): string {
  // A malformed code (too short, too long) is refused by the service's validation.
  return isKnownError(error, "SCHEMA_ERROR") ? m.codeNotValid(what) : describeError(error, m, what);
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
