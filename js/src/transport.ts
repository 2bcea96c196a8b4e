import { isKnownError } from "./known-error.js";
import { randomNonce } from "./random.js";
import { CLIENT_REFRESH_GRANT_TYPE, CLIENT_REFRESH_PATH, RETRY_NETWORK_FAILURE_IN_SESSION, SIGNS_OUT } from "./refresh-policy.gen.js";
import { ALLOW_ANONYMOUS_HEADER } from "./token-kinds.gen.js";
import { CLIENT_VERSION_HEADER } from "./version.js";

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE" | "OPTIONS" | "HEAD";
/** The tier of every call (`x-stack-access-type`); the browser's is "client". */
export type AccessType = "client" | "server" | "admin";

/** Attempts per request, counting the first (service-api A1.8). */
export const MAX_ATTEMPTS = 5;
export const BACKOFF_BASE_MS = 1000;
/** Longest wait a timer can take (2^31 - 1 ms); every wait is capped at it. */
export const MAX_WAIT_MS = 2147483647;

/** The error classes and the error table, loaded with the first failure: a page whose calls
 * succeed never loads them. */
const errors = () => import("./errors.js");

const IDEMPOTENT = new Set<HttpMethod>(["GET", "PUT", "DELETE", "OPTIONS", "HEAD"]);
const LOOP_MARKER = "INFINITE_LOOP_DETECTED";

export interface SessionTokens {
  accessToken: string | null;
  refreshToken: string | null;
}

/** The tokens one request carries. */
export interface RequestTokens extends SessionTokens {
  /**
   * The access token is an anonymous or restricted user's and the app accepts such users: the
   * request says so (`x-stack-allow-anonymous-user: true`, API 2.8), else the service refuses it.
   */
  allowAnonymousUser?: boolean;
}

/** What the transport needs from a session: current tokens, and a way to drop a rejected access token. */
export interface TokenProvider {
  getTokens(): Promise<RequestTokens>;
  markAccessTokenExpired(accessToken: string): void;
}

export interface TransportOptions {
  projectId: string;
  publishableClientKey?: string | null;
  /** Default "client". "server" and "admin" are for trusted code (a back end, a local admin tool). */
  accessType?: AccessType;
  /** Sent with the "server" tier. Never put it in a page served to users. */
  secretServerKey?: string | null;
  /** Sent with the "admin" tier unless the call has an `adminSession`. Never put it in a page served to users. */
  superSecretAdminKey?: string | null;
  /** API URL without `/api/v1`, e.g. `http://localhost:8102`. */
  baseUrl: string;
  fetch?: typeof globalThis.fetch;
  sleep?: (ms: number) => Promise<void>;
  /** Uniform in [0, 1); used for backoff jitter. */
  random?: () => number;
  /** Milliseconds since the epoch; used for HTTP-date Retry-After. */
  now?: () => number;
  /** Defaults to `navigator.onLine`; undefined when unknown. */
  isOnline?: () => boolean | undefined;
  nonce?: () => string;
}

export interface ApiRequest {
  method: HttpMethod;
  /** Path under `/api/v1`, starting with `/`. */
  path: string;
  /** JSON body; omitted when undefined. */
  body?: unknown;
  /** Session whose tokens are sent; null for anonymous calls (sign-in, sign-up). */
  session?: TokenProvider | null;
  /**
   * A project owner's session on the `internal` project: its access token goes in
   * `x-stack-admin-access-token`; refused (InvalidAdminAccessToken, ApiKeyNotFound), it is
   * marked expired and the call retried once with a refreshed one (service-api C4).
   */
  adminSession?: TokenProvider | null;
  /**
   * "json" (default): a 2xx body must be JSON (empty = null), else InvalidServerResponse.
   * "text": the body as a string (the few endpoints that answer plain text).
   */
  responseType?: "json" | "text";
}

export interface ApiResponse<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
}

interface RawResult {
  response: Response;
  status: number;
  text: string;
}

const NO_TOKENS: RequestTokens = { accessToken: null, refreshToken: null };

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function defaultIsOnline(): boolean | undefined {
  return typeof navigator !== "undefined" && typeof navigator.onLine === "boolean" ? navigator.onLine : undefined;
}

/** fetch rejects with a TypeError when the request could not be sent at all. */
const isNetworkFailure = (error: unknown) => error instanceof TypeError;

/** `x-stack-actual-status` replaces the HTTP status when present (override-error-status, service-api A1.6). */
function effectiveStatus(response: Response): number {
  const actual = response.headers.get("x-stack-actual-status");
  const parsed = actual === null ? NaN : Number.parseInt(actual, 10);
  return Number.isFinite(parsed) ? parsed : response.status;
}

/** One transport for every call: headers, retries, known errors, token refresh on rejection. */
export class Transport {
  readonly projectId: string;
  readonly publishableClientKey: string | null;
  readonly baseUrl: string;
  readonly accessType: AccessType;
  private readonly tierKey: [header: string, key: string] | null;
  private readonly fetchImpl: typeof globalThis.fetch;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly random: () => number;
  private readonly now: () => number;
  private readonly isOnline: () => boolean | undefined;
  private readonly nonce: () => string;

  constructor(options: TransportOptions) {
    this.projectId = options.projectId;
    this.publishableClientKey = options.publishableClientKey ?? null;
    this.accessType = options.accessType ?? "client";
    const tierKey = {
      client: ["x-stack-publishable-client-key", this.publishableClientKey],
      server: ["x-stack-secret-server-key", options.secretServerKey],
      admin: ["x-stack-super-secret-admin-key", options.superSecretAdminKey],
    }[this.accessType] as [string, string | null | undefined] | undefined;
    if (!tierKey) throw new TypeError(`accessType must be "client", "server" or "admin", not ${JSON.stringify(this.accessType)}`);
    this.tierKey = tierKey[1] ? [tierKey[0], tierKey[1]] : null;
    this.baseUrl = options.baseUrl.endsWith("/") ? options.baseUrl.slice(0, -1) : options.baseUrl;
    // Bind so that a browser's fetch is not called with a foreign `this`.
    const f = options.fetch ?? globalThis.fetch;
    this.fetchImpl = (input, init) => f(input, init);
    this.sleep = options.sleep ?? defaultSleep;
    this.random = options.random ?? Math.random;
    this.now = options.now ?? Date.now;
    this.isOnline = options.isOnline ?? defaultIsOnline;
    this.nonce = options.nonce ?? randomNonce;
  }

  apiUrl(path: string): string {
    return `${this.baseUrl}/api/v1${path}`;
  }

  /** Wait after failed attempt `attempt` (0-based): 1000 ms × 2^attempt × random(0.5..1.5). */
  backoffMs(attempt: number): number {
    return BACKOFF_BASE_MS * 2 ** attempt * (0.5 + this.random());
  }

  /** Retry-After as milliseconds: delta-seconds or an HTTP date; null when absent or unreadable. */
  retryAfterMs(headers: Headers): number | null {
    const value = headers.get("retry-after")?.trim();
    if (!value) return null;
    if (/^\d+(\.\d+)?$/.test(value)) return Number(value) * 1000;
    const date = Date.parse(value);
    return Number.isNaN(date) ? null : Math.max(0, date - this.now());
  }

  async request<T = unknown>(req: ApiRequest): Promise<ApiResponse<T>> {
    const url = this.apiUrl(req.path);
    const bodyText = req.body === undefined ? undefined : JSON.stringify(req.body);
    for (let tokenRetry = 0; ; tokenRetry++) {
      const tokens = req.session ? await req.session.getTokens() : NO_TOKENS;
      const adminToken = req.adminSession ? (await req.adminSession.getTokens()).accessToken : null;
      const init = (): RequestInit => ({
        method: req.method,
        headers: this.apiHeaders(tokens, bodyText !== undefined, adminToken),
        body: bodyText,
        credentials: "omit",
        cache: "no-store",
      });
      const { response, status, text } = await this.send(req.method, url, init, IDEMPOTENT.has(req.method));
      const code = response.headers.get("x-stack-known-error");
      if (code !== null) {
        const error = (await errors()).parseKnownError(code, status, text);
        if (isKnownError(error, "INVALID_ACCESS_TOKEN") && req.session && tokens.accessToken && tokenRetry === 0) {
          req.session.markAccessTokenExpired(tokens.accessToken);
          continue;
        }
        const adminRefused = isKnownError(error, "INVALID_ADMIN_ACCESS_TOKEN") || isKnownError(error, "API_KEY_NOT_FOUND");
        if (adminRefused && req.adminSession && adminToken && tokenRetry === 0) {
          req.adminSession.markAccessTokenExpired(adminToken);
          continue;
        }
        throw error;
      }
      if (status < 200 || status >= 300) throw await httpStatusError(status, text, url, req.method);
      const body = req.responseType === "text" ? text : await parseJsonBody(status, text);
      return { status, headers: response.headers, body: body as T };
    }
  }

  /**
   * OAuth refresh grant: form-encoded, no x-stack headers, no override header; the refresh
   * policy's (authmw/refresh_policy.json, docs/architecture.md "Refresh policy"). Returns null
   * when the service refuses the refresh token (SIGNS_OUT: REFRESH_TOKEN_ERROR); throws on
   * anything else, so callers never drop tokens because of a network blip. Refreshing rotates
   * nothing, so a session's refresh retries network failures like GET.
   */
  async refreshAccessToken(refreshToken: string): Promise<string | null> {
    const fields = {
      grant_type: CLIENT_REFRESH_GRANT_TYPE,
      refresh_token: refreshToken,
      client_id: this.projectId,
      client_secret: this.publishableClientKey ?? "",
    };
    const answer = await this.form(CLIENT_REFRESH_PATH, fields, RETRY_NETWORK_FAILURE_IN_SESSION).catch((error: unknown) => {
      if (SIGNS_OUT.some((refused) => isKnownError(error, refused))) return null;
      throw error;
    });
    if (!answer) return null;
    const body = answer.body as { access_token?: unknown } | null;
    if (!body || typeof body.access_token !== "string") {
      throw new (await errors()).InvalidServerResponse("the token endpoint answered without access_token", answer.status, answer.text);
    }
    return body.access_token;
  }

  /**
   * POSTs a form to an OAuth endpoint (no x-stack headers) and returns its JSON; known errors are
   * thrown (e.g. INVALID_AUTHORIZATION_CODE, MULTI_FACTOR_AUTHENTICATION_REQUIRED). Not retried
   * after a network failure: an authorization code is single-use.
   */
  async postForm(path: string, fields: Record<string, string>): Promise<unknown> {
    return (await this.form(path, fields, false)).body;
  }

  /** A form POSTed to an OAuth endpoint: its status, text and JSON; a known error is thrown. */
  private async form(path: string, fields: Record<string, string>, idempotent: boolean) {
    const url = this.apiUrl(path);
    const init = (): RequestInit => ({
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
      body: new URLSearchParams(fields).toString(),
      credentials: "omit",
      cache: "no-store",
    });
    const { response, status, text } = await this.send("POST", url, init, idempotent);
    const code = response.headers.get("x-stack-known-error");
    if (code !== null) throw (await errors()).parseKnownError(code, status, text);
    if (status < 200 || status >= 300) throw await httpStatusError(status, text, url, "POST");
    return { status, text, body: await parseJsonBody(status, text) };
  }

  private apiHeaders(tokens: RequestTokens, hasBody: boolean, adminAccessToken: string | null = null): Record<string, string> {
    const headers: Record<string, string> = {
      "x-stack-project-id": this.projectId,
      "x-stack-access-type": this.accessType,
      "x-stack-client-version": CLIENT_VERSION_HEADER,
      "x-stack-random-nonce": this.nonce(),
      "x-stack-override-error-status": "true",
    };
    if (adminAccessToken) headers["x-stack-admin-access-token"] = adminAccessToken;
    else if (this.tierKey) headers[this.tierKey[0]] = this.tierKey[1];
    if (tokens.accessToken) headers["x-stack-access-token"] = tokens.accessToken;
    if (tokens.accessToken && tokens.allowAnonymousUser) headers[ALLOW_ANONYMOUS_HEADER] = "true";
    if (tokens.refreshToken) headers["x-stack-refresh-token"] = tokens.refreshToken;
    if (hasBody) headers["content-type"] = "application/json";
    return headers;
  }

  private wait(ms: number): Promise<void> {
    return this.sleep(Math.min(Math.max(0, ms), MAX_WAIT_MS));
  }

  /** Sends with the retry rules of service-api A1.8; `init` is called per attempt (fresh nonce). */
  private async send(method: string, url: string, init: () => RequestInit, idempotent: boolean): Promise<RawResult> {
    for (let attempt = 0; ; attempt++) {
      const last = attempt === MAX_ATTEMPTS - 1;
      let response: Response;
      try {
        response = await this.fetchImpl(url, init());
      } catch (error) {
        if (!isNetworkFailure(error)) throw error;
        if (!idempotent || last) {
          const { connectionFailure } = await import("./connection-failure.js");
          throw await connectionFailure({
            fetch: this.fetchImpl,
            baseUrl: this.baseUrl,
            online: this.isOnline(),
            method,
            url,
            cause: error,
            attempts: attempt + 1,
            idempotent,
          });
        }
        await this.wait(this.backoffMs(attempt));
        continue;
      }
      const status = effectiveStatus(response);
      const text = await response.text();
      if (!last && status === 429) {
        await this.wait(this.retryAfterMs(response.headers) ?? this.backoffMs(attempt));
        continue;
      }
      if (!last && status === 508 && text.includes(LOOP_MARKER)) {
        await this.wait(this.backoffMs(attempt));
        continue;
      }
      return { response, status, text };
    }
  }

}

async function parseJsonBody(status: number, text: string): Promise<unknown> {
  if (text === "") return null;
  try {
    return JSON.parse(text);
  } catch {
    throw new (await errors()).InvalidServerResponse("expected a JSON body", status, text);
  }
}

async function httpStatusError(status: number, text: string, url: string, method: string): Promise<Error> {
  return new (await errors()).HttpStatusError(status, text, { url, method });
}
