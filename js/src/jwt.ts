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

/**
 * When the access token expires, in ms since the epoch: from `exp` without verification,
 * Infinity when there is no `exp`, and 0 (already expired) when the token cannot be read.
 */
export function accessTokenExpiresAt(token: string): number {
  const claims = decodeJwtClaims(token);
  if (claims === null) return 0;
  return typeof claims.exp === "number" ? claims.exp * 1000 : Infinity;
}
