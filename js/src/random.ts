/** Lower-case Crockford base32 alphabet (no i, l, o, u). */
export const CROCKFORD_ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz";

/** Encodes bytes as lower-case Crockford base32, most significant bit first, zero-padded. */
export function crockfordBase32(bytes: Uint8Array): string {
  let out = "";
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += CROCKFORD_ALPHABET[(buffer >> bits) & 31];
    }
    buffer &= (1 << bits) - 1;
  }
  if (bits > 0) out += CROCKFORD_ALPHABET[(buffer << (5 - bits)) & 31];
  return out;
}

/** 224 random bits as 45 lower-case Crockford base32 characters (the service's nonce format). */
export function randomNonce(): string {
  const bytes = new Uint8Array(28);
  globalThis.crypto.getRandomValues(bytes);
  return crockfordBase32(bytes);
}
