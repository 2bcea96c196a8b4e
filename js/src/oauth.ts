// OAuth sign-in, linking and connected accounts (service-api A5.4.6-A5.4.7, A6.5-A6.6; service-api C2, C4, C7).
// The Python client (authmw/_oauth.py) follows the same rules. The protocol's pure parts are in
// oauth-protocol.ts; this module, loaded with the first OAuth call, runs the flows.
import type { ApiContext } from "./api-context.js";
import { deleteCookieString, setCookieString, type CookieDocument } from "./cookies.js";
import {
  AuthmwError,
  OAuthConnectionDoesNotHaveRequiredScope,
  OAuthConnectionNotConnectedToUser,
  InvalidServerResponse,
} from "./errors.js";
import { isKnownError } from "./known-error.js";
import type { CurrentUser } from "./models.js";
import { OAuthCallbackError } from "./oauth-callback-error.js";
import {
  OAUTH_OUTER_COOKIE_MAX_AGE_S,
  OAUTH_OUTER_COOKIE_PREFIXES,
  authorizeUrl,
  callbackCode,
  codeChallenge,
  newFlowSecrets,
  readOuterVerifier,
  stripCodeAndState,
  type AuthorizeUrlOptions,
} from "./oauth-protocol.js";
import type { Transport } from "./transport.js";
import { absoluteUrl, toRelativeUrl, withReturnTo } from "./return-to.js";

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
   * no verifier was kept for the state (nothing happens, service-api C2). Throws OAuthCallbackError,
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
      // API 2.8 accepts only an absolute, trusted URL here; a path names a page of this app.
      afterCallbackRedirectUrl: extra.afterCallbackRedirectUrl ? absoluteUrl(extra.afterCallbackRedirectUrl) : undefined,
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
    const user = await ctx.storeSignIn({ accessToken: body.access_token, refreshToken: body.refresh_token });
    const after = typeof body.after_callback_redirect_url === "string" ? pathOnThisOrigin(body.after_callback_redirect_url) : null;
    return { status: "signed-in", isNewUser: body.is_new_user === true, afterCallbackRedirectUrl: after, user };
  }

  return {
    async signIn(provider, options = {}) {
      const returnTo = options.returnTo ? toRelativeUrl(options.returnTo) : null;
      // An anonymous session goes along, so that a sign-up upgrades it (service-api A7.3).
      const access = ctx.session.getState().refreshToken ? await ctx.session.getSessionAccess().catch(() => null) : null;
      return start(provider, withReturnTo(ctx.urls.oauthCallback, returnTo), {
        afterCallbackRedirectUrl: options.afterCallbackRedirectUrl,
        anonymousToken: access?.kind === "anonymous" ? access.accessToken : undefined,
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
          // Anyone can write these parameters, and the service never sends this one here (it
          // comes from the code exchange): an attempt code of the URL's must not start a
          // multi-factor step (a prompt for the person's TOTP code that no sign-in of theirs asked for).
          const forged = isKnownError(error, "MULTI_FACTOR_AUTHENTICATION_REQUIRED");
          return Promise.reject(forged ? new OAuthCallbackError("provider_error", "The sign-in was not completed.", "server_error") : error);
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

/** A URL of this page's origin as its path (the authorize call sent it absolute), any other as given. */
function pathOnThisOrigin(url: string): string {
  try {
    const resolved = new URL(url, window.location.href);
    if (resolved.origin === window.location.origin) return `${resolved.pathname}${resolved.search}${resolved.hash}`;
  } catch {
    // not a URL: returned as the service sent it
  }
  return url;
}
