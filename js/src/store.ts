// The browser session: tokens in memory, mirrored to cookies (service-api A4.1), refreshed on demand
// under the rules of service-api C4 and service-api A3.7.
import {
  checkSameSite,
  normalizeTokens,
  readSessionCookies,
  readStoredSession,
  sessionCookieWrites,
  type CookieDocument,
  type CookieFormat,
  type CookieSameSite,
} from "./cookies.js";
import { accessTokenExpiresAt, hasValidity } from "./jwt.js";
import { MAX_MIN_VALIDITY_MS, REQUIRED_VALIDITY_MS } from "./refresh-policy.gen.js";
import { accessTokenKind, kindAllowed, type AccessTokenKind, type UserKindOptions } from "./token-kind.js";
import type { RequestTokens, SessionTokens, TokenProvider } from "./transport.js";
import { createStore, type StoreApi } from "./vanilla.js";

export type SessionState = SessionTokens;

/** Validity callers ask for by default before using an access token (a token with less left is
 * refreshed; exactly this much is enough): the refresh policy's, authmw/refresh_policy.json. */
export const DEFAULT_MIN_VALIDITY_MS = REQUIRED_VALIDITY_MS;
/** Callers must ask for less than this. */
export { MAX_MIN_VALIDITY_MS };
export const COOKIE_POLL_INTERVAL_MS = 100;

export interface SessionStoreOptions {
  projectId: string;
  /** Exchanges a refresh token for an access token; null = the refresh token is definitively invalid. */
  refresh: (refreshToken: string) => Promise<string | null>;
  /** Where cookies live: `document` by default in a browser, null to keep tokens in memory only. */
  cookies?: CookieDocument | null;
  /** Whether to add `secure` to cookies; defaults to "the page is https". */
  isSecure?: () => boolean;
  now?: () => number;
  /** Initial tokens when cookies are not used. */
  initialTokens?: Partial<SessionTokens>;
  /** How the refresh cookie is written: "2.7" (default) or "2.8" (the structured cookie). */
  cookieFormat?: CookieFormat;
  /** The cookies' SameSite attribute: "lax" (default), "strict", or "none" (https pages only). */
  cookieSameSite?: CookieSameSite;
  /**
   * Which sessions besides normal users' count (API 2.8): an anonymous or restricted session
   * that is not allowed here is left alone (cookies kept) and treated as none.
   */
  userKinds?: UserKindOptions;
}

/** The current session's access token (fresh), and what kind of user it is for. */
export interface SessionAccess {
  accessToken: string;
  refreshToken: string;
  kind: AccessTokenKind;
  /** Whether the session counts here (a normal user, or a kind the options allow). */
  allowed: boolean;
}

export interface GetAccessTokenOptions {
  /** Remaining validity required, in ms; must be < 60000. Default 20000. */
  minValidityMs?: number;
}

export interface SessionStore extends StoreApi<SessionState>, TokenProvider {
  /** Replaces both tokens (after sign-in). */
  setTokens(tokens: Partial<SessionTokens>): void;
  /** Forgets both tokens (sign-out, refresh rejected, user deleted). */
  clear(): void;
  /**
   * A valid access token, refreshing first when needed; null when signed out, and for a session
   * of a kind that is not allowed (an anonymous or restricted user, see `userKinds`).
   */
  getAccessToken(options?: GetAccessTokenOptions): Promise<string | null>;
  /** The session's valid access token (refreshing first when needed) and its kind, allowed or not; null when signed out. */
  getSessionAccess(options?: GetAccessTokenOptions): Promise<SessionAccess | null>;
  /** Whether a session of `kind` counts here (see `userKinds`). */
  allowsKind(kind: AccessTokenKind): boolean;
  /** The tokens a request carries: none for a session that is not allowed. */
  getTokens(): Promise<RequestTokens>;
  /** Re-reads the cookies now; returns true when that changed the tokens. */
  syncFromCookies(): boolean;
  /** Polls cookies every 100 ms until the returned function is called (reference counted). */
  startPolling(): () => void;
}

function defaultCookieDocument(): CookieDocument | null {
  return typeof document !== "undefined" ? document : null;
}

function defaultIsSecure(): boolean {
  return typeof location !== "undefined" && location.protocol === "https:";
}

const sameTokens = (a: SessionTokens, b: SessionTokens) =>
  a.refreshToken === b.refreshToken && a.accessToken === b.accessToken;

export function createSessionStore(options: SessionStoreOptions): SessionStore {
  const cookies = options.cookies === undefined ? defaultCookieDocument() : options.cookies;
  const isSecure = options.isSecure ?? defaultIsSecure;
  const now = options.now ?? Date.now;
  const sameSite = cookies ? checkSameSite(options.cookieSameSite, isSecure()) : "lax";
  const inflight = new Map<string, Promise<string | null>>();
  let warnedShortLived = false;

  const readCookies = () => (cookies ? readSessionCookies(cookies.cookie, options.projectId) : null);
  const store = createStore<SessionState>(readCookies() ?? normalizeTokens(options.initialTokens ?? {}));

  // Values last seen in (or written to) the cookies; a state equal to them needs no write.
  let cookieTokens: SessionTokens | null = cookies ? store.getState() : null;
  store.subscribe((state) => {
    if (!cookies || (cookieTokens && sameTokens(cookieTokens, state))) return;
    const stored = readStoredSession(cookies.cookie, options.projectId).refreshCookies;
    const writeOptions = { now: now(), secure: isSecure(), sameSite, format: options.cookieFormat, stored };
    for (const assignment of sessionCookieWrites(state, options.projectId, writeOptions)) cookies.cookie = assignment;
    cookieTokens = state;
  });

  const setTokens = (tokens: Partial<SessionTokens>) => store.setState(normalizeTokens(tokens));

  function syncFromCookies(): boolean {
    const fromCookies = readCookies();
    if (!fromCookies) return false;
    cookieTokens = fromCookies;
    if (sameTokens(fromCookies, store.getState())) return false;
    store.setState(fromCookies);
    return true;
  }

  // One in-flight refresh per refresh token, shared by every caller.
  function refreshShared(refreshToken: string): Promise<string | null> {
    let pending = inflight.get(refreshToken);
    if (!pending) {
      pending = (async () => {
        try {
          const accessToken = await options.refresh(refreshToken);
          // Another tab may have signed out or in meanwhile: what the cookies hold now is the
          // session, and the answer for an older one neither deletes it nor writes that one back.
          syncFromCookies();
          if (store.getState().refreshToken === refreshToken) {
            if (accessToken === null) setTokens({});
            else store.setState({ accessToken });
          }
          return accessToken;
        } finally {
          inflight.delete(refreshToken);
        }
      })();
      inflight.set(refreshToken, pending);
    }
    return pending;
  }

  /** A valid access token of the session, whatever its kind (service-api C4). */
  async function freshAccessToken({ minValidityMs = DEFAULT_MIN_VALIDITY_MS }: GetAccessTokenOptions = {}) {
    if (!(minValidityMs < MAX_MIN_VALIDITY_MS)) {
      throw new RangeError(`minValidityMs must be below ${MAX_MIN_VALIDITY_MS} ms (got ${minValidityMs}).`);
    }
    if (cookies && pollers === 0) syncFromCookies();
    // A second round only when the session changed under a refresh (e.g. another tab signed in).
    for (let round = 0; round < 2; round++) {
      const { refreshToken, accessToken } = store.getState();
      if (!refreshToken) return null;
      if (accessToken && hasValidity(accessToken, now(), minValidityMs)) return accessToken;
      const fresh = await refreshShared(refreshToken);
      if (store.getState().refreshToken !== refreshToken) continue;
      if (fresh === null) return null;
      // The official SDK asserts here. A fresh token is still the best there is (a short
      // development TTL, or a skewed clock), so it is used, with one warning (whose words load
      // with it, not with the first page).
      if (!hasValidity(fresh, now(), minValidityMs) && !warnedShortLived) {
        warnedShortLived = true;
        const remainingMs = accessTokenExpiresAt(fresh) - now();
        void import("./short-lived-warning.gen.js").then((m) => console.warn(m.shortLivedWarning(remainingMs, minValidityMs)));
      }
      return fresh;
    }
    return store.getState().accessToken;
  }

  async function getSessionAccess(validity?: GetAccessTokenOptions): Promise<SessionAccess | null> {
    const accessToken = await freshAccessToken(validity);
    const { refreshToken } = store.getState();
    if (!accessToken || !refreshToken) return null;
    const kind = accessTokenKind(accessToken, options.projectId);
    return { accessToken, refreshToken, kind, allowed: kindAllowed(kind, options.userKinds) };
  }

  let pollers = 0;
  let timer: ReturnType<typeof setInterval> | undefined;
  function startPolling() {
    if (!cookies) return () => {};
    pollers++;
    if (pollers === 1) {
      syncFromCookies();
      timer = setInterval(syncFromCookies, COOKIE_POLL_INTERVAL_MS);
    }
    let stopped = false;
    return () => {
      if (stopped) return;
      stopped = true;
      pollers--;
      if (pollers === 0) clearInterval(timer);
    };
  }

  return {
    ...store,
    setTokens,
    clear: () => setTokens({}),
    getSessionAccess,
    allowsKind: (kind) => kindAllowed(kind, options.userKinds),
    async getAccessToken(options) {
      const access = await getSessionAccess(options);
      return access?.allowed ? access.accessToken : null;
    },
    async getTokens() {
      const access = await getSessionAccess();
      return access?.allowed
        ? { accessToken: access.accessToken, refreshToken: access.refreshToken, allowAnonymousUser: access.kind !== "user" }
        : { accessToken: null, refreshToken: null };
    },
    markAccessTokenExpired(accessToken) {
      // The same for a token refused after another tab changed the session.
      syncFromCookies();
      if (store.getState().accessToken === accessToken) store.setState({ accessToken: null });
    },
    syncFromCookies,
    startPolling,
  };
}
