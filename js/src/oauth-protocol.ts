// The OAuth protocol of the client (service-api A6.5-A6.6; service-api C7): PKCE, the authorize URL, the
// callback's checks and the verifier cookie. Pure functions, no session: oauth.ts runs the flows
// with them, and they are public for apps that drive OAuth themselves.
import { parseCookieHeader, decodeCookieValue } from "./cookies.js";
import { parseKnownError } from "./errors.js";
import { AuthmwError } from "./known-error.js";
import { OAuthCallbackError } from "./oauth-callback-error.js";

export { OAuthCallbackError, type OAuthCallbackErrorReason } from "./oauth-callback-error.js";

/** Names of the cookie holding the PKCE verifier: the first is written, both are read (2.7 and 2.8.108 SDKs). */
export const OAUTH_OUTER_COOKIE_PREFIXES = ["stack-oauth-outer-", "hexclave-oauth-outer-"] as const;
/** Lifetime of the verifier cookie (service-api A4.1). */
export const OAUTH_OUTER_COOKIE_MAX_AGE_S = 3600;

const base64url = (bytes: Uint8Array) => {
  let text = "";
  for (const byte of bytes) text += String.fromCharCode(byte);
  return btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
};

function randomToken(bytes: number): string {
  const buffer = new Uint8Array(bytes);
  globalThis.crypto.getRandomValues(buffer);
  return base64url(buffer);
}

/** BASE64URL(SHA-256(verifier)), the S256 code challenge. */
export async function codeChallenge(verifier: string): Promise<string> {
  const subtle = globalThis.crypto?.subtle;
  if (!subtle) {
    throw new AuthmwError("Signing in with OAuth needs the Web Crypto API: serve the page over https (or localhost).");
  }
  const digest = await subtle.digest("SHA-256", new TextEncoder().encode(verifier));
  return base64url(new Uint8Array(digest));
}

/** A fresh random state and PKCE verifier (43 URL-safe characters each or more). */
export function newFlowSecrets(): { state: string; codeVerifier: string } {
  return { state: randomToken(24), codeVerifier: randomToken(48) };
}

/** `url` without its `code` and `state` parameters and its fragment (service-api C5). */
export function stripCodeAndState(url: string): string {
  const parsed = new URL(url);
  parsed.searchParams.delete("code");
  parsed.searchParams.delete("state");
  parsed.hash = "";
  return parsed.toString();
}

/** The verifier kept for `state` under either name the official SDKs write, else null. */
export function readOuterVerifier(cookieHeader: string, state: string): string | null {
  const cookies = parseCookieHeader(cookieHeader);
  for (const prefix of OAUTH_OUTER_COOKIE_PREFIXES) {
    const raw = cookies.get(prefix + state);
    if (raw) return decodeCookieValue(raw);
  }
  return null;
}

export interface AuthorizeUrlOptions {
  baseUrl: string;
  projectId: string;
  publishableClientKey: string;
  provider: string;
  redirectUri: string;
  state: string;
  codeChallenge: string;
  errorRedirectUrl?: string;
  afterCallbackRedirectUrl?: string;
  /** type=link with the user's access token. */
  linkToken?: string;
  /**
   * type=authenticate with an anonymous user's access token: a sign-up at the callback upgrades
   * that user, keeping its id (API 2.8, service-api A7.3); an existing account signs in instead.
   */
  anonymousToken?: string;
  providerScope?: string;
}

/** The authorize URL with every query parameter of service-api C7. */
export function authorizeUrl(o: AuthorizeUrlOptions): string {
  const provider = o.provider.trim().toLowerCase();
  if (!/^[a-z0-9_]+$/.test(provider)) {
    throw new AuthmwError(`OAuth provider must be an id such as "github" or "google", got ${JSON.stringify(o.provider)}.`);
  }
  const query = new URLSearchParams({
    client_id: o.projectId,
    client_secret: o.publishableClientKey,
    redirect_uri: stripCodeAndState(o.redirectUri),
    scope: "legacy",
    state: o.state,
    grant_type: "authorization_code",
    code_challenge: o.codeChallenge,
    code_challenge_method: "S256",
    response_type: "code",
    type: o.linkToken === undefined ? "authenticate" : "link",
  });
  if (o.errorRedirectUrl) query.set("error_redirect_url", o.errorRedirectUrl);
  if (o.afterCallbackRedirectUrl) query.set("after_callback_redirect_url", o.afterCallbackRedirectUrl);
  if (o.linkToken !== undefined) {
    query.set("token", o.linkToken);
    if (o.providerScope) query.set("provider_scope", o.providerScope);
  } else if (o.anonymousToken !== undefined) {
    query.set("token", o.anonymousToken);
  }
  const base = o.baseUrl.replace(/\/+$/, "");
  return `${base}/api/v1/auth/oauth/authorize/${provider}?${query.toString()}`;
}

/** The code of a callback after the checks of flow 6.5 step 7 (throws OAuthCallbackError or the service's error). */
export function callbackCode(params: URLSearchParams, expectedState: string | null, issuer: string): string {
  const errorCode = params.get("errorCode");
  if (errorCode) {
    const body = JSON.stringify({
      code: errorCode,
      error: params.get("message") ?? undefined,
      details: safeJson(params.get("details")),
    });
    throw parseKnownError(errorCode, 400, body);
  }
  const error = params.get("error");
  if (error) {
    const description = params.get("error_description");
    throw new OAuthCallbackError(
      "provider_error",
      `The sign-in was not completed: ${error}${description ? ` (${description})` : ""}.`,
      error,
    );
  }
  if (["access_token", "id_token", "token_type"].some((name) => params.get(name))) {
    throw new OAuthCallbackError("implicit_response", "The callback carries tokens in the URL; only codes are accepted.");
  }
  const code = params.get("code");
  const state = params.get("state");
  if (!code || !state) throw new OAuthCallbackError("missing_parameters", "This is not an OAuth callback: code or state is missing.");
  if (!expectedState || state !== expectedState) {
    throw new OAuthCallbackError("state_mismatch", "The callback's state is not the one this sign-in started with.");
  }
  const iss = params.get("iss");
  if (iss !== null && iss.replace(/\/+$/, "") !== issuer.replace(/\/+$/, "")) {
    throw new OAuthCallbackError("issuer_mismatch", `The callback comes from issuer ${iss}, not ${issuer}.`);
  }
  return code;
}

function safeJson(text: string | null): unknown {
  try {
    const value: unknown = text ? JSON.parse(text) : {};
    return value && typeof value === "object" ? value : {};
  } catch {
    return {};
  }
}
