import { describe, expect, it } from "vitest";
import * as core from "../src/core";
import * as index from "../src/index";
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
  "ConnectionError",
  "DEFAULT_DASHBOARD_URL",
  "DEFAULT_HANDLER_PATH",
  "DEFAULT_MIN_VALIDITY_MS",
  "HEXCLAVE_ACCESS_COOKIE",
  "HttpStatusError",
  "InvalidServerResponse",
  "KnownError",
  "LEGACY_REFRESH_COOKIE",
  "MAX_ATTEMPTS",
  "MAX_MIN_VALIDITY_MS",
  "MAX_WAIT_MS",
  "MissingCallbackUrlError",
  "OAUTH_OUTER_COOKIE_MAX_AGE_S",
  "OAUTH_OUTER_COOKIE_PREFIXES",
  "OAuthCallbackError",
  "authorizeUrl",
  "callbackCode",
  "codeChallenge",
  "readOuterVerifier",
  "stripCodeAndState",
  "PASSKEY_RP_PLACEHOLDER",
  "RETURN_TO_PARAM",
  "TOTP_ENROL_WINDOW",
  "TOTP_SECRET_BYTES",
  "Transport",
  "UntrustedRedirectError",
  "VERSION",
  "authPageUrl",
  "authenticationOptions",
  "callbackUrl",
  "checkTotpSetupCode",
  "createAdminClient",
  "createAsyncCache",
  "createAuthClient",
  "createSessionStore",
  "createStore",
  "createTotpSetup",
  "decodeJwtClaims",
  "isPasskeyCancel",
  "getProductionModeErrors",
  "knownErrorClass",
  "knownErrorClasses",
  "knownErrorFromJson",
  "otpCode",
  "ownedProjects",
  "parseKnownError",
  "passkeyAutofillSupported",
  "passkeyHostname",
  "passkeysSupported",
  "randomNonce",
  "readSessionCookies",
  "readStoredSession",
  "reasonPhrase",
  "redirectToSignIn",
  "refreshCookieName",
  "registrationOptions",
  "resolveUrls",
  "sessionCookieWrites",
  "structuredRefreshCookieName",
  "toRelativeUrl",
  "trustedReturnTo",
  "webauthnError",
];
const REACT = [
  "AccountSettings",
  "AuthHandler",
  "AuthProvider",
  "AuthStyles",
  "DEFAULT_MESSAGES",
  "DEFAULT_STYLES",
  "EmailVerification",
  "ForgotPassword",
  "HandlerError",
  "HandlerNotFound",
  "MagicLinkCallback",
  "MagicLinkSignIn",
  "MfaPrompt",
  "OAuthCallback",
  "PasswordReset",
  "SignIn",
  "SignOut",
  "SignUp",
  "TeamInvitation",
  "describeError",
  "useAuth",
  "useCachedValue",
  "useConnectedAccount",
  "useContactChannels",
  "usePermission",
  "useProject",
  "useSelectedTeam",
  "useTeamInvitations",
  "useTeamMemberProfiles",
  "useTeamPermissions",
  "useTeams",
  "useUser",
];
const errorClassNames = Object.values(knownErrorClasses).map((cls) => cls.className);

const sorted = (names: string[]) => [...names].sort();

describe("public API", () => {
  it("@authmw/react/core exports the core and one class per catalogue code", () => {
    expect(sorted(Object.keys(core))).toEqual(sorted([...CORE, ...errorClassNames]));
  });

  it("@authmw/react adds the React layer", () => {
    expect(sorted(Object.keys(index))).toEqual(sorted([...CORE, ...errorClassNames, ...REACT]));
  });

  it("@authmw/react/testing exports the testing helpers", () => {
    expect(sorted(Object.keys(testing))).toEqual(["AuthProviderForTesting", "createTestingController", "fakeTeam", "fakeUser"]);
  });
});
