// Session cookies exactly as service-api A4.1 describes them.
import { AuthmwError } from "./known-error.js";
import type { SessionTokens } from "./transport.js";

export const REFRESH_COOKIE_MAX_AGE_S = 31_536_000;
export const ACCESS_COOKIE_MAX_AGE_S = 86_400;
export const ACCESS_COOKIE = "stack-access";
export const LEGACY_REFRESH_COOKIE = "stack-refresh";
export const refreshCookieName = (projectId: string) => `stack-refresh-${projectId}`;

/** The part of `document` that cookies need; a fake one makes the format testable. */
export interface CookieDocument {
  cookie: string;
}

/** `"undefined"` (and the empty string) is never a token; an access token needs a refresh token. */
export function normalizeTokens(tokens: Partial<SessionTokens>): SessionTokens {
  const clean = (t: string | null | undefined) => (t && t !== "undefined" ? t : null);
  const refreshToken = clean(tokens.refreshToken);
  const accessToken = refreshToken ? clean(tokens.accessToken) : null;
  return { refreshToken, accessToken };
}

/** Percent-decoded value; raw values that are not valid percent-encoding are taken as they are. */
export function decodeCookieValue(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/** name -> raw value; the first occurrence wins (browsers list the most specific path first). */
export function parseCookieHeader(header: string): Map<string, string> {
  const cookies = new Map<string, string>();
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq < 0) continue;
    const name = part.slice(0, eq).trim();
    if (name && !cookies.has(name)) cookies.set(name, part.slice(eq + 1).trim());
  }
  return cookies;
}

export const HEXCLAVE_ACCESS_COOKIE = "hexclave-access";
/** How the refresh cookie is written: "2.7" (raw, read by every SDK generation) or "2.8" (structured). */
export type CookieFormat = "2.7" | "2.8";
export const structuredRefreshCookieName = (projectId: string, secure: boolean) =>
  `${secure ? "__Host-" : ""}stack-refresh-${projectId}--default`;

/** A session read from cookies, with every recognised refresh cookie as [name, token], best first. */
export interface StoredSession extends SessionTokens {
  refreshCookies: Array<[string, string]>;
}

function structuredToken(value: string): [string, number] | null {
  if (!value.startsWith("{")) return null;
  try {
    const data: unknown = JSON.parse(value);
    if (!data || typeof data !== "object" || Array.isArray(data)) return null;
    const { refresh_token: token, updated_at_millis: updated } = data as Record<string, unknown>;
    if (typeof token !== "string" || !token || token === "undefined") return null;
    if (updated === null || updated === undefined) return [token, -Infinity];
    return typeof updated === "number" && Number.isFinite(updated) ? [token, updated] : null;
  } catch {
    return null;
  }
}

/**
 * Reads one project's session from a cookie header, every generation at once, in the newest
 * official SDK's order: the newest structured `hexclave-refresh-{id}--*`, the raw
 * `stack-refresh-{id}`, the legacy `stack-refresh`, the newest structured `stack-refresh-{id}--*`
 * (`__Host-` variants included; null `updated_at_millis` is oldest; unparsable values skipped).
 * The access token is taken from `stack-access` or `hexclave-access` only when its refresh half matches.
 */
export function readStoredSession(header: string, projectId: string): StoredSession {
  const cookies = parseCookieHeader(header);
  const value = (name: string) => {
    const raw = cookies.get(name);
    return raw ? decodeCookieValue(raw) : null;
  };
  const hexclave = [`hexclave-refresh-${projectId}--`, `__Host-hexclave-refresh-${projectId}--`];
  const stack = [`stack-refresh-${projectId}--`, `__Host-stack-refresh-${projectId}--`];
  const found = { hexclave: [] as Array<[number, string, string]>, stack: [] as Array<[number, string, string]> };
  for (const [name, raw] of cookies) {
    const family = hexclave.some((p) => name.startsWith(p)) ? "hexclave" : stack.some((p) => name.startsWith(p)) ? "stack" : null;
    if (!family) continue;
    const parsed = structuredToken(decodeCookieValue(raw));
    if (parsed) found[family].push([parsed[1], name, parsed[0]]);
  }
  // Stable sort: of equally new cookies the first in the header wins.
  const newestFirst = (list: Array<[number, string, string]>) =>
    [...list].sort((a, b) => (b[0] === a[0] ? 0 : b[0] > a[0] ? 1 : -1)).map(([, n, t]): [string, string] => [n, t]);
  const raw: Array<[string, string]> = [];
  for (const name of [refreshCookieName(projectId), LEGACY_REFRESH_COOKIE]) {
    const token = normalizeTokens({ refreshToken: value(name) }).refreshToken;
    if (token) raw.push([name, token]);
  }
  const refreshCookies = [...newestFirst(found.hexclave), ...raw, ...newestFirst(found.stack)];
  const refreshToken = refreshCookies[0]?.[1] ?? null;
  let accessToken: string | null = null;
  for (const name of [ACCESS_COOKIE, HEXCLAVE_ACCESS_COOKIE]) {
    const access = value(name);
    if (!refreshToken || !access?.startsWith('["')) continue;
    try {
      const pair: unknown = JSON.parse(access);
      if (Array.isArray(pair) && pair.length === 2 && pair[0] === refreshToken && typeof pair[1] === "string") {
        accessToken = pair[1];
        break;
      }
    } catch {
      // not a JSON array: no access token here
    }
  }
  return { ...normalizeTokens({ refreshToken, accessToken }), refreshCookies };
}

/** Reads the session from a cookie header (`document.cookie` or a request's Cookie header). */
export function readSessionCookies(header: string, projectId: string): SessionTokens {
  const { refreshToken, accessToken } = readStoredSession(header, projectId);
  return { refreshToken, accessToken };
}

/**
 * The session cookies' SameSite attribute. "lax" (default): sent with top-level navigations
 * from other sites, not with their forms, frames or scripts. "strict": never from other sites.
 * "none": with every cross-site request (a back end on another site); always `secure`.
 */
export type CookieSameSite = "lax" | "strict" | "none";
const SAME_SITE_VALUES: readonly string[] = ["lax", "strict", "none"];

export interface CookieWriteOptions {
  now: number;
  secure: boolean;
  /** Default "lax". */
  sameSite?: CookieSameSite;
}

/**
 * A `cookieSameSite` option checked and lower-cased. "none" needs an https page: browsers drop
 * SameSite=None cookies that are not secure, and only https pages may write secure cookies.
 */
export function checkSameSite(value: string | undefined, pageIsSecure: boolean): CookieSameSite {
  const sameSite = (value ?? "lax").toLowerCase();
  if (!SAME_SITE_VALUES.includes(sameSite)) {
    throw new AuthmwError(`cookieSameSite must be "lax", "strict" or "none", not ${JSON.stringify(value)}.`);
  }
  if (sameSite === "none" && !pageIsSecure) {
    throw new AuthmwError(
      'cookieSameSite "none" needs secure cookies, which browsers keep only from https pages: serve the page over https, or use "lax".',
    );
  }
  return sameSite as CookieSameSite;
}

/** `; samesite=…` and `; secure` (https pages, "none", and names that require it). */
function attributes(options: Pick<CookieWriteOptions, "secure" | "sameSite">, secure = options.secure): string {
  const sameSite = options.sameSite ?? "lax";
  return `; samesite=${sameSite}${secure || sameSite === "none" ? "; secure" : ""}`;
}

export function setCookieString(name: string, value: string, maxAgeS: number, options: CookieWriteOptions): string {
  const expires = new Date(options.now + maxAgeS * 1000).toUTCString();
  return `${name}=${encodeURIComponent(value)}; path=/; max-age=${maxAgeS}; expires=${expires}${attributes(options)}`;
}

const BASE32 = "abcdefghijklmnopqrstuvwxyz234567";

/** The `Domain` a `...--custom-{base32(domain)}` cookie was written with, else null. */
export function cookieDomain(name: string): string | null {
  const at = name.lastIndexOf("--custom-");
  if (at < 0) return null;
  const encoded = name.slice(at + "--custom-".length).toLowerCase();
  let bits = 0;
  let buffer = 0;
  let domain = "";
  for (const ch of encoded) {
    const index = BASE32.indexOf(ch);
    if (index < 0) return null;
    buffer = (buffer << 5) | index;
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      domain += String.fromCharCode((buffer >> bits) & 0xff);
    }
  }
  return domain && /^[a-z0-9.-]+$/i.test(domain) ? domain : null;
}

export function deleteCookieString(name: string, options: Pick<CookieWriteOptions, "secure" | "sameSite">): string {
  const domain = cookieDomain(name);
  // A __Host- cookie is only replaced (here: expired) by a secure one.
  const secure = options.secure || name.startsWith("__Host-");
  return `${name}=; path=/; max-age=0; expires=Thu, 01 Jan 1970 00:00:00 GMT${domain ? `; domain=${domain}` : ""}${attributes(options, secure)}`;
}

export interface SessionCookieWriteOptions extends CookieWriteOptions {
  /** Default "2.7". */
  format?: CookieFormat;
  /** The refresh cookies the page holds now ({@link readStoredSession}). */
  stored?: Array<[string, string]>;
}

/**
 * The `document.cookie` assignments that store `tokens`, in order. A new session (another
 * refresh token than the cookies' best one) is the newest, so it retires every other refresh
 * cookie, as the official SDK does; the same session keeps other generations' cookies; no
 * session deletes them all.
 */
export function sessionCookieWrites(tokens: SessionTokens, projectId: string, options: SessionCookieWriteOptions): string[] {
  const { refreshToken, accessToken } = normalizeTokens(tokens);
  const stored = options.stored ?? [];
  const raw = refreshCookieName(projectId);
  const writes: string[] = [];
  // No session: the 2.8.108 SDK's access cookie goes too (an unexpired token outlives no session).
  const retired = new Set<string>(refreshToken ? [LEGACY_REFRESH_COOKIE] : [raw, LEGACY_REFRESH_COOKIE, HEXCLAVE_ACCESS_COOKIE]);
  if (!refreshToken) {
    for (const [name] of stored) retired.add(name);
  } else {
    const sameSession = stored[0]?.[1] === refreshToken;
    for (const [name, token] of stored) if (!sameSession || (token === refreshToken && options.format === "2.8")) retired.add(name);
    if (options.format === "2.8") {
      const name = structuredRefreshCookieName(projectId, options.secure);
      const value = JSON.stringify({ refresh_token: refreshToken, updated_at_millis: options.now });
      writes.push(setCookieString(name, value, REFRESH_COOKIE_MAX_AGE_S, options));
      retired.delete(name);
    } else {
      writes.push(setCookieString(raw, refreshToken, REFRESH_COOKIE_MAX_AGE_S, options));
      retired.delete(raw);
    }
  }
  for (const name of retired) writes.push(deleteCookieString(name, options));
  writes.push(
    refreshToken && accessToken
      ? setCookieString(ACCESS_COOKIE, JSON.stringify([refreshToken, accessToken]), ACCESS_COOKIE_MAX_AGE_S, options)
      : deleteCookieString(ACCESS_COOKIE, options),
  );
  return writes;
}
