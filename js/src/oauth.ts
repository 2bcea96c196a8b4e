// OAuth sign-in, linking and connected accounts (contract 5.4.6-5.4.7, flows 6.5-6.6; spec 2, 4, 7).
// The Python client (authmw/_oauth.py) follows the same rules.
import type { ApiContext } from "./api-context";
import { parseCookieHeader, decodeCookieValue, deleteCookieString, setCookieString, type CookieDocument } from "./cookies";
import {
  AuthmwError,
  OAuthConnectionDoesNotHaveRequiredScope,
  OAuthConnectionNotConnectedToUser,
  InvalidServerResponse,
  parseKnownError,
} from "./errors";
import type { CurrentUser } from "./models";
import type { Transport } from "./transport";
import { absoluteUrl, toRelativeUrl, withReturnTo } from "./urls";

/** Names of the cookie holding the PKCE verifier: the first is written, both are read (2.7 and 2.8.108 SDKs). */
export const OAUTH_OUTER_COOKIE_PREFIXES = ["stack-oauth-outer-", "hexclave-oauth-outer-"] as const;
/** Lifetime of the verifier cookie (contract 4.1). */
export const OAUTH_OUTER_COOKIE_MAX_AGE_S = 3600;

export type OAuthCallbackErrorReason =
  | "missing_parameters"
  | "no_stored_state"
  | "state_mismatch"
  | "issuer_mismatch"
  | "provider_error"
  | "implicit_response";

/** An OAuth callback that cannot finish a sign-in; `reason` says which check failed. */
export class OAuthCallbackError extends AuthmwError {
  readonly reason: OAuthCallbackErrorReason;
  /** The provider's `error` parameter (e.g. "access_denied") for reason "provider_error". */
  readonly error: string | undefined;
  constructor(reason: OAuthCallbackErrorReason, message: string, error?: string) {
    super(message);
    this.name = "OAuthCallbackError";
    this.reason = reason;
    this.error = error;
  }
}

export interface SignInWithOAuthOptions {
  /** Where to go after signing in (relative; kept as after_auth_return_to on the callback URL). */
  returnTo?: string | null;
  /** Sent as after_callback_redirect_url and returned by the code exchange. */
  afterCallbackRedirectUrl?: string;
}

export interface LinkOAuthOptions {
  /** Provider scopes to ask for (own-key providers only). */
  scopes?: string[];
  /** Where to come back to; default: the current page. */
  returnTo?: string | null;
}

export type OAuthCallbackResult =
  | { status: "not-for-us" }
  | { status: "signed-in"; isNewUser: boolean; afterCallbackRedirectUrl: string | null; user: CurrentUser | null };

export interface ConnectedAccount {
  provider: string;
  accessToken: string;
}

export interface GetConnectedAccountOptions {
  scopes?: string[];
  /** "return-null" (default): null when not connected; "redirect": start the link flow instead. */
  or?: "return-null" | "redirect";
}

/** OAuth calls of a client (`auth.oauth`). */
export interface OAuthApi {
  /** Sends the browser to the provider (PKCE S256, state, verifier cookie for 1 hour). */
  signIn(provider: string, options?: SignInWithOAuthOptions): Promise<void>;
  /** Connects another provider (or more scopes) to the signed-in user (type=link). */
  link(provider: string, options?: LinkOAuthOptions): Promise<void>;
  /**
   * Finishes the flow on the oauth-callback page. "not-for-us" when code or state is missing or
   * no verifier was kept for the state (nothing happens, spec 2). Throws OAuthCallbackError,
   * the service's error, or MultiFactorAuthenticationRequired (finish with signInWithMfa).
   */
  handleCallback(url?: string): Promise<OAuthCallbackResult>;
  /** An access token for the provider's API, or null (or the link flow, with or: "redirect"). */
  getConnectedAccount(provider: string, options?: GetConnectedAccountOptions): Promise<ConnectedAccount | null>;
}

export interface OAuthDeps {
  transport: Transport;
  cookies: CookieDocument | null;
  /** Default: window.location.assign. */
  assign?: (url: string) => void;
  now?: () => number;
  /** Stores the tokens of a sign-in and reloads the user. */
  storeSignIn(tokens: { accessToken: string; refreshToken: string }): Promise<CurrentUser | null>;
}

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

/** `url` without its `code` and `state` parameters and its fragment (spec 5). */
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
  providerScope?: string;
}

/** The authorize URL with every query parameter of spec section 7. */
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

interface TokenResponse {
  access_token?: unknown;
  refresh_token?: unknown;
  is_new_user?: unknown;
  after_callback_redirect_url?: unknown;
}

/** Callbacks being finished, by state: a second call (React StrictMode) shares the first. */
const finishing = new Map<string, Promise<OAuthCallbackResult>>();

export function createOAuthApi(ctx: ApiContext, deps: OAuthDeps): OAuthApi {
  const { transport } = deps;
  const assign = deps.assign ?? ((url: string) => window.location.assign(url));
  const now = deps.now ?? Date.now;
  const secure = () => typeof location !== "undefined" && location.protocol === "https:";

  async function start(provider: string, redirectPage: string, extra: Partial<AuthorizeUrlOptions>): Promise<void> {
    if (!transport.publishableClientKey) {
      throw new AuthmwError("Signing in with OAuth needs the publishable client key (publishableClientKey).");
    }
    const { state, codeVerifier } = newFlowSecrets();
    const url = authorizeUrl({
      baseUrl: transport.baseUrl,
      projectId: transport.projectId,
      publishableClientKey: transport.publishableClientKey,
      provider,
      redirectUri: absoluteUrl(redirectPage),
      state,
      codeChallenge: await codeChallenge(codeVerifier),
      errorRedirectUrl: absoluteUrl(ctx.urls.error),
      ...extra,
    });
    if (!deps.cookies) throw new AuthmwError("Signing in with OAuth needs cookies (a browser page).");
    deps.cookies.cookie = setCookieString(OAUTH_OUTER_COOKIE_PREFIXES[0] + state, codeVerifier, OAUTH_OUTER_COOKIE_MAX_AGE_S, {
      now: now(),
      secure: secure(),
    });
    assign(url);
  }

  function consumeVerifier(state: string): string | null {
    if (!deps.cookies) return null;
    const verifier = readOuterVerifier(deps.cookies.cookie, state);
    if (verifier) {
      for (const prefix of OAUTH_OUTER_COOKIE_PREFIXES) {
        deps.cookies.cookie = deleteCookieString(prefix + state, { secure: secure() });
      }
    }
    return verifier;
  }

  async function finish(url: string, params: URLSearchParams, verifier: string): Promise<OAuthCallbackResult> {
    const code = callbackCode(params, params.get("state"), transport.baseUrl);
    const body = (await transport.postForm("/auth/oauth/token", {
      grant_type: "authorization_code",
      code,
      redirect_uri: stripCodeAndState(url),
      code_verifier: verifier,
      client_id: transport.projectId,
      client_secret: transport.publishableClientKey ?? "",
    })) as TokenResponse | null;
    if (!body || typeof body.access_token !== "string" || typeof body.refresh_token !== "string") {
      throw new InvalidServerResponse("the token endpoint answered without tokens", 200, JSON.stringify(body));
    }
    const user = await deps.storeSignIn({ accessToken: body.access_token, refreshToken: body.refresh_token });
    const after = typeof body.after_callback_redirect_url === "string" ? body.after_callback_redirect_url : null;
    return { status: "signed-in", isNewUser: body.is_new_user === true, afterCallbackRedirectUrl: after, user };
  }

  return {
    async signIn(provider, options = {}) {
      const returnTo = options.returnTo ? toRelativeUrl(options.returnTo) : null;
      return start(provider, withReturnTo(ctx.urls.oauthCallback, returnTo), {
        afterCallbackRedirectUrl: options.afterCallbackRedirectUrl,
      });
    },

    async link(provider, options = {}) {
      const token = await ctx.session.getAccessToken();
      if (!token) throw new AuthmwError("Connecting an account needs a signed-in user.");
      const here = typeof window !== "undefined" ? `${location.pathname}${location.search}${location.hash}` : null;
      const returnTo = options.returnTo ? toRelativeUrl(options.returnTo) : here;
      return start(provider, withReturnTo(ctx.urls.oauthCallback, returnTo), {
        linkToken: token,
        providerScope: options.scopes?.join(" ") || undefined,
        afterCallbackRedirectUrl: returnTo ?? undefined,
      });
    },

    handleCallback(url = window.location.href) {
      const params = new URL(url).searchParams;
      const state = params.get("state");
      if (params.get("errorCode") || params.get("error")) {
        try {
          callbackCode(params, state, transport.baseUrl);
        } catch (error) {
          return Promise.reject(error);
        }
      }
      if (!params.get("code") || !state) return Promise.resolve({ status: "not-for-us" });
      const pending = finishing.get(state);
      if (pending) return pending;
      const verifier = consumeVerifier(state);
      if (!verifier) return Promise.resolve({ status: "not-for-us" });
      if (typeof window !== "undefined" && url === window.location.href) {
        // the code is single-use: keep it out of the address bar and the history
        window.history.replaceState(window.history.state, "", stripCodeAndState(url).replace(/^[^:]+:\/\/[^/]+/, ""));
      }
      const promise = finish(url, params, verifier);
      finishing.set(state, promise);
      void promise.catch(() => {}).finally(() => finishing.delete(state));
      return promise;
    },

    async getConnectedAccount(provider, options = {}) {
      const id = provider.trim().toLowerCase();
      const scope = options.scopes?.join(" ");
      try {
        const { body } = await ctx.request<{ access_token?: unknown }>({
          method: "POST",
          path: `/connected-accounts/me/${encodeURIComponent(id)}/access-token`,
          body: scope ? { scope } : {},
          session: ctx.session,
        });
        if (typeof body?.access_token !== "string") {
          throw new InvalidServerResponse("the connected-account answer has no access_token", 201, JSON.stringify(body));
        }
        return { provider: id, accessToken: body.access_token };
      } catch (error) {
        const missing =
          error instanceof OAuthConnectionNotConnectedToUser || error instanceof OAuthConnectionDoesNotHaveRequiredScope;
        if (!missing) throw error;
        if (options.or === "redirect") await this.link(id, { scopes: options.scopes });
        return null;
      }
    },
  };
}
