function base64UrlDecode(segment: string): string {
  const b64 = segment.replace(/-/g, "+").replace(/_/g, "/");
  const binary = atob(b64 + "=".repeat((4 - (b64.length % 4)) % 4));
  const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
  return new TextDecoder().decode(bytes);
}

/** Claims of a JWT, read WITHOUT verifying the signature; null when it is not a JWT. */
export function decodeJwtClaims(token: string): Record<string, unknown> | null {
  const parts = token.split(".");
  if (parts.length !== 3 || !parts[1]) return null;
  try {
    const claims: unknown = JSON.parse(base64UrlDecode(parts[1]));
    return typeof claims === "object" && claims !== null && !Array.isArray(claims) ? (claims as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** Largest `exp` accepted (9999-12-31T23:59:59Z), as in the Python package. */
const MAX_TIME_CLAIM_S = 253_402_300_799;

/**
 * When the access token expires, in ms since the epoch: from `exp` without verification,
 * Infinity when there is no `exp` (absent or null), and 0 (already expired, so refreshed)
 * when the token cannot be read or its `exp` is not a number of seconds up to the year 9999.
 */
export function accessTokenExpiresAt(token: string): number {
  const claims = decodeJwtClaims(token);
  if (claims === null) return 0;
  const exp = claims.exp;
  if (exp === undefined || exp === null) return Infinity;
  return typeof exp === "number" && exp >= 0 && exp <= MAX_TIME_CLAIM_S ? exp * 1000 : 0;
}

/**
 * Spec section 4, the one rule of this package: a token may be used while at least
 * `minValidityMs` of it remain; with less it needs refreshing. (Python: `has_validity`.)
 */
export function hasValidity(token: string, now: number, minValidityMs: number): boolean {
  return accessTokenExpiresAt(token) - now >= minValidityMs;
}
