// Session cookies exactly as contract section 4.1 describes them.
import type { SessionTokens } from "./transport";

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

/** Reads the session from a cookie header (`document.cookie` or a request's Cookie header). */
export function readSessionCookies(header: string, projectId: string): SessionTokens {
  const cookies = parseCookieHeader(header);
  const value = (name: string) => {
    const raw = cookies.get(name);
    return raw ? decodeCookieValue(raw) : null;
  };
  const refreshToken = value(refreshCookieName(projectId)) ?? value(LEGACY_REFRESH_COOKIE);
  let accessToken: string | null = null;
  const access = value(ACCESS_COOKIE);
  if (refreshToken && access?.startsWith('["')) {
    try {
      const pair: unknown = JSON.parse(access);
      if (Array.isArray(pair) && pair[0] === refreshToken && typeof pair[1] === "string") accessToken = pair[1];
    } catch {
      // not a JSON array: no access token
    }
  }
  return normalizeTokens({ refreshToken, accessToken });
}

export interface CookieWriteOptions {
  now: number;
  secure: boolean;
}

export function setCookieString(name: string, value: string, maxAgeS: number, options: CookieWriteOptions): string {
  const expires = new Date(options.now + maxAgeS * 1000).toUTCString();
  return `${name}=${encodeURIComponent(value)}; path=/; max-age=${maxAgeS}; expires=${expires}${options.secure ? "; secure" : ""}`;
}

export function deleteCookieString(name: string, options: Pick<CookieWriteOptions, "secure">): string {
  return `${name}=; path=/; max-age=0; expires=Thu, 01 Jan 1970 00:00:00 GMT${options.secure ? "; secure" : ""}`;
}

/** The `document.cookie` assignments that store `tokens`, in order. */
export function sessionCookieWrites(tokens: SessionTokens, projectId: string, options: CookieWriteOptions): string[] {
  const { refreshToken, accessToken } = normalizeTokens(tokens);
  return [
    refreshToken
      ? setCookieString(refreshCookieName(projectId), refreshToken, REFRESH_COOKIE_MAX_AGE_S, options)
      : deleteCookieString(refreshCookieName(projectId), options),
    deleteCookieString(LEGACY_REFRESH_COOKIE, options),
    refreshToken && accessToken
      ? setCookieString(ACCESS_COOKIE, JSON.stringify([refreshToken, accessToken]), ACCESS_COOKIE_MAX_AGE_S, options)
      : deleteCookieString(ACCESS_COOKIE, options),
  ];
}
