// @authmw/react/protocol: the OAuth, passkey and TOTP helpers behind the handler pages, for
// apps that build their own forms. Apart from the main entry, so that a page that only signs
// users in does not load them.
export { otpCode } from "./otp-code";
export {
  PASSKEY_RP_PLACEHOLDER,
  authenticationOptions,
  isPasskeyCancel,
  passkeyAutofillSupported,
  passkeyHostname,
  passkeysSupported,
  registrationOptions,
  webauthnError,
} from "./passkeys";
export { TOTP_ENROL_WINDOW, TOTP_SECRET_BYTES, checkTotpSetupCode, createTotpSetup } from "./totp";
export type { TotpSetup } from "./totp";
export {
  OAUTH_OUTER_COOKIE_MAX_AGE_S,
  OAUTH_OUTER_COOKIE_PREFIXES,
  OAuthCallbackError,
  authorizeUrl,
  callbackCode,
  codeChallenge,
  readOuterVerifier,
  stripCodeAndState,
} from "./oauth-protocol";
export type { AuthorizeUrlOptions, OAuthCallbackErrorReason } from "./oauth-protocol";
