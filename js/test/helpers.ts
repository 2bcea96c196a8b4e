import { vi } from "vitest";
import { AuthClient, type AuthClientOptions } from "../src/client";
import { Transport } from "../src/transport";

export const PROJECT_ID = "11111111-2222-4333-8444-555555555555";
export const PCK = "pck_test";
export const BASE_URL = "http://api.test";

const b64url = (text: string) => btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");

/** An unsigned JWT-shaped token with these claims (the client never verifies signatures). */
export function makeJwt(claims: Record<string, unknown>): string {
  return `${b64url(JSON.stringify({ alg: "ES256", kid: "test" }))}.${b64url(JSON.stringify(claims))}.sig`;
}

/** An access token that expires `seconds` after `now` (ms). */
export const tokenValidFor = (seconds: number, now = Date.now(), sub = "user-1") =>
  makeJwt({ sub, exp: Math.floor(now / 1000) + seconds, iat: Math.floor(now / 1000) });

export function jsonResponse(body: unknown, init: { status?: number; headers?: Record<string, string> } = {}): Response {
  return new Response(JSON.stringify(body), {
    status: init.status ?? 200,
    headers: { "content-type": "application/json; charset=utf-8", ...init.headers },
  });
}

/** A known error as the service sends it when the request carried x-stack-override-error-status. */
export function knownErrorResponse(
  code: string,
  status: number,
  message = "message",
  details?: Record<string, unknown>,
  options: { override?: boolean } = { override: true },
): Response {
  const body = details ? { code, details, error: message } : { code, error: message };
  const headers: Record<string, string> = { "x-stack-known-error": code };
  if (options.override) headers["x-stack-actual-status"] = String(status);
  return jsonResponse(body, { status: options.override ? 200 : status, headers });
}

export interface RecordedCall {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string | undefined;
  init: RequestInit;
}

type Handler = (call: RecordedCall) => Response | Promise<Response>;

/** A fetch double: answers from queued handlers (in order) or a route function, and records calls. */
export function fakeFetch(route?: Handler) {
  const queue: Handler[] = [];
  const calls: RecordedCall[] = [];
  const fn = vi.fn(async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const headers: Record<string, string> = {};
    new Headers(init.headers).forEach((value, key) => {
      headers[key] = value;
    });
    const call: RecordedCall = {
      url: String(input),
      method: init.method ?? "GET",
      headers,
      body: typeof init.body === "string" ? init.body : undefined,
      init,
    };
    calls.push(call);
    const handler = queue.shift() ?? route;
    if (!handler) throw new Error(`unexpected fetch ${call.method} ${call.url}`);
    return handler(call);
  });
  return {
    fetch: fn as unknown as typeof globalThis.fetch,
    calls,
    reply(...handlers: (Handler | Response)[]) {
      for (const h of handlers) queue.push(typeof h === "function" ? h : () => h);
    },
  };
}

export const networkFailure = (): Handler => () => {
  throw new TypeError("Failed to fetch");
};

/** A sleep double that records the requested waits and resolves at once. */
export function recordingSleep() {
  const waits: number[] = [];
  return { waits, sleep: async (ms: number) => void waits.push(ms) };
}

export const userWire = (fields: Record<string, unknown> = {}) => ({
  id: "0b6f6a8e-0000-4000-8000-000000000001",
  display_name: null,
  primary_email: "ada@example.com",
  primary_email_verified: false,
  profile_image_url: null,
  signed_up_at_millis: 1738000000000,
  client_metadata: null,
  client_read_only_metadata: null,
  has_password: true,
  auth_with_email: true,
  otp_auth_enabled: false,
  passkey_auth_enabled: false,
  requires_totp_mfa: false,
  oauth_providers: [],
  selected_team_id: null,
  selected_team: null,
  ...fields,
});

/** Deletes every cookie jsdom holds for the current page. */
export function clearDocumentCookies() {
  for (const part of document.cookie.split(";")) {
    const name = part.split("=")[0]?.trim();
    if (name) document.cookie = `${name}=; path=/; max-age=0`;
  }
}

/** An AuthClient of the test project over `fetch`: no cookies unless `options` say, waits recorded, not slept. */
export function testClient(fetch: typeof globalThis.fetch, options: Partial<AuthClientOptions> = {}): AuthClient {
  return new AuthClient({
    projectId: PROJECT_ID,
    publishableClientKey: PCK,
    baseUrl: BASE_URL,
    fetch,
    sleep: recordingSleep().sleep,
    cookies: null,
    ...options,
  });
}

/** An AuthClient over a fetch double, without cookies; the double's calls and replies along. */
export function clientWith(options: Partial<AuthClientOptions> = {}) {
  const f = fakeFetch();
  return { client: testClient(f.fetch, options), ...f };
}

/** The client view of the project as the service sends it (`config` overrides its settings). */
export function projectWire(config: Record<string, unknown> = {}) {
  return {
    id: PROJECT_ID,
    display_name: "Demo",
    config: {
      sign_up_enabled: true,
      credential_enabled: true,
      magic_link_enabled: false,
      passkey_enabled: false,
      client_team_creation_enabled: false,
      client_user_deletion_enabled: false,
      enabled_oauth_providers: [],
      ...config,
    },
  };
}

/** A client-tier Transport over a fetch double: backoff waits recorded, not slept; online. */
export function transportOver(fetch: typeof globalThis.fetch): Transport {
  return new Transport({
    projectId: PROJECT_ID,
    publishableClientKey: PCK,
    baseUrl: BASE_URL,
    fetch,
    sleep: recordingSleep().sleep,
    random: () => 0.5,
    isOnline: () => true,
  });
}
