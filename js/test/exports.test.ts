import { describe, expect, it } from "vitest";
import * as core from "../src/core";
import * as index from "../src/index";
import * as errors from "../src/errors";
import * as protocol from "../src/protocol";
import * as testing from "../src/testing";
import { knownErrorClasses } from "../src/errors";

// Changing the public API should be a deliberate act: update these lists with it.
const CORE = [
  "ACCESS_COOKIE",
  "AdminClient",
  "AuthClient",
  "AuthmwError",
  "BACKOFF_BASE_MS",
  "CACHE_DROP_AFTER_MS",
  "CACHE_THROTTLE_MS",
  "COOKIE_POLL_INTERVAL_MS",
  "CREATED_CLIENTS_WARNING_THRESHOLD",
  "DEFAULT_DASHBOARD_URL",
  "DEFAULT_HANDLER_PATH",
  "DEFAULT_MIN_VALIDITY_MS",
  "HEXCLAVE_ACCESS_COOKIE",
  "KnownError",
  "LEGACY_REFRESH_COOKIE",
  "MAX_ATTEMPTS",
  "MAX_MIN_VALIDITY_MS",
  "MAX_WAIT_MS",
  "Transport",
  "VERSION",
  "checkFeatureSupport",
  "createAdminClient",
  "createAsyncCache",
  "createAuthClient",
  "createSessionStore",
  "SIGN_OUT_INTENT_PARAM",
  "signOutIntentUrl",
  "accessTokenKind",
  "ALLOW_ANONYMOUS_HEADER",
  "kindAllowed",
  "LEGACY_ISSUER",
  "TOKEN_KINDS",
  "createStore",
  "decodeJwtClaims",
  "getProductionModeErrors",
  "isKnownError",
  "ownedProjects",
  "randomNonce",
  "readSessionCookies",
  "readStoredSession",
  "refreshCookieName",
  "resolveUrls",
  "sessionCookieWrites",
  "structuredRefreshCookieName",
];
// @authmw/react/errors: every error class (loaded with the first error response, not in the main entry).
const ERRORS = [
  "AuthmwError",
  "KnownError",
  "isKnownError",
  "ConnectionError",
  "FeatureNotSupported",
  "HttpStatusError",
  "InvalidServerResponse",
  "NotInServiceVersion",
  "knownErrorClass",
  "knownErrorClasses",
  "knownErrorFromJson",
  "parseKnownError",
  "reasonPhrase",
];
// @authmw/react/protocol: the redirect, OAuth, passkey and TOTP helpers behind the pages.
const PROTOCOL = [
  "MissingCallbackUrlError",
  "RETURN_TO_PARAM",
  "UntrustedRedirectError",
  "authPageUrl",
  "callbackUrl",
  "redirectToSignIn",
  "toRelativeUrl",
  "trustedReturnTo",
  "OAUTH_OUTER_COOKIE_MAX_AGE_S",
  "OAUTH_OUTER_COOKIE_PREFIXES",
  "OAuthCallbackError",
  "authorizeUrl",
  "callbackCode",
  "codeChallenge",
  "readOuterVerifier",
  "stripCodeAndState",
  "PASSKEY_RP_PLACEHOLDER",
  "TOTP_ENROL_WINDOW",
  "TOTP_SECRET_BYTES",
  "authenticationOptions",
  "checkTotpSetupCode",
  "createTotpSetup",
  "isPasskeyCancel",
  "otpCode",
  "passkeyAutofillSupported",
  "passkeyHostname",
  "passkeysSupported",
  "registrationOptions",
  "webauthnError",
];
const REACT = [
  "AccountSettings",
  "AuthHandler",
  "AuthProvider",
  "AuthStyles",
  "COMPONENT_STYLES",
  "ComponentStyles",
  "CredentialSignIn",
  "CredentialSignUp",
  "DEFAULT_COMPONENT_TEXTS",
  "DEFAULT_MESSAGES",
  "DEFAULT_STYLES",
  "EmailVerification",
  "ForgotPassword",
  "HandlerError",
  "HandlerNotFound",
  "MagicLinkCallback",
  "MagicLinkSignIn",
  "MfaPrompt",
  "OAuthButton",
  "OAuthButtonGroup",
  "OAuthCallback",
  "Onboarding",
  "PasswordReset",
  "Protect",
  "RedirectToSignIn",
  "SelectedTeamSwitcher",
  "SignIn",
  "SignedIn",
  "SignedOut",
  "SignInButton",
  "SignOut",
  "SignOutLink",
  "SignUp",
  "TeamCreation",
  "CliAuthConfirm",
  "SignUpButton",
  "TeamInvitation",
  "UserAvatar",
  "UserButton",
  "VerificationNotice",
  "describeError",
  "describeUntrustedError",
  "useAuth",
  "useCachedValue",
  "useConnectedAccount",
  "useContactChannels",
  "usePermission",
  "useProject",
  "useSelectedTeam",
  "useTeamInvitations",
  "useReceivedTeamInvitations",
  "useTeamMemberProfiles",
  "useTeamPermissions",
  "useTeams",
  "useUser",
  "useProjectPermission",
  "useProjectPermissions",
];
const errorClassNames = Object.values(knownErrorClasses).map((cls) => cls.className);

const sorted = (names: string[]) => [...names].sort();

describe("public API", () => {
  it("@authmw/react/core exports the core and the error bases, not the catalogue's classes", () => {
    expect(sorted(Object.keys(core))).toEqual(sorted(CORE));
  });

  it("@authmw/react adds the React layer", () => {
    expect(sorted(Object.keys(index))).toEqual(sorted([...CORE, ...REACT]));
  });

  it("@authmw/react/errors exports the bases, the helpers and one class per catalogue code", () => {
    expect(sorted(Object.keys(errors))).toEqual(sorted([...ERRORS, ...errorClassNames]));
  });

  it("@authmw/react/protocol exports the OAuth, passkey and TOTP helpers", () => {
    expect(sorted(Object.keys(protocol))).toEqual(sorted(PROTOCOL));
  });

  it("@authmw/react/testing exports the testing helpers", () => {
    expect(sorted(Object.keys(testing))).toEqual(["AuthProviderForTesting", "createTestingController", "fakeTeam", "fakeUser"]);
  });
});
