// @authmw/react/protocol: the redirect, OAuth, passkey and TOTP helpers behind the handler
// pages, for apps that build their own forms. Apart from the main entry, so that a page that
// only signs users in does not load them (a bundler such as esbuild puts a module the main
// entry re-exports into the first load of every page when lazily loaded code uses it).
export {
  MissingCallbackUrlError,
  RETURN_TO_PARAM,
  UntrustedRedirectError,
  authPageUrl,
  callbackUrl,
  redirectToSignIn,
  toRelativeUrl,
  trustedReturnTo,
} from "./return-to.js";
export type { Navigate } from "./return-to.js";
export { otpCode } from "./otp-code.js";
export {
  PASSKEY_RP_PLACEHOLDER,
  authenticationOptions,
  isPasskeyCancel,
  passkeyAutofillSupported,
  passkeyHostname,
  passkeysSupported,
  registrationOptions,
  webauthnError,
} from "./passkeys.js";
export { TOTP_ENROL_WINDOW, TOTP_SECRET_BYTES, checkTotpSetupCode, createTotpSetup } from "./totp.js";
export type { TotpSetup } from "./totp.js";
export {
  OAUTH_OUTER_COOKIE_MAX_AGE_S,
  OAUTH_OUTER_COOKIE_PREFIXES,
  OAuthCallbackError,
  authorizeUrl,
  callbackCode,
  codeChallenge,
  readOuterVerifier,
  stripCodeAndState,
} from "./oauth-protocol.js";
export type { AuthorizeUrlOptions, OAuthCallbackErrorReason } from "./oauth-protocol.js";
