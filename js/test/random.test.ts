import { describe, expect, it } from "vitest";
import { accessTokenExpiresAt, decodeJwtClaims } from "../src/jwt";
import { crockfordBase32, randomNonce } from "../src/random";
import { makeJwt } from "./helpers";

describe("nonce", () => {
  it("encodes bytes as lower-case Crockford base32, most significant bits first", () => {
    expect(crockfordBase32(new Uint8Array([0xff]))).toBe("zw");
    expect(crockfordBase32(new Uint8Array([0x00, 0x44, 0x32]))).toBe("01234");
    expect(crockfordBase32(new Uint8Array(28))).toBe("0".repeat(45));
  });

  it("is 45 characters of 224 random bits and differs each time", () => {
    const nonces = new Set(Array.from({ length: 50 }, randomNonce));
    expect(nonces.size).toBe(50);
    for (const n of nonces) expect(n).toMatch(/^[0-9a-hjkmnp-tv-z]{45}$/);
  });
});

describe("access-token expiry (read without verification)", () => {
  it("reads exp in seconds", () => {
    expect(accessTokenExpiresAt(makeJwt({ exp: 1_700_000_000 }))).toBe(1_700_000_000_000);
  });

  it("never expires without exp, is expired when unreadable", () => {
    expect(accessTokenExpiresAt(makeJwt({ sub: "u" }))).toBe(Infinity);
    expect(accessTokenExpiresAt("not-a-jwt")).toBe(0);
    expect(accessTokenExpiresAt("a.%%%.c")).toBe(0);
    const utf8 = btoa(String.fromCharCode(...new TextEncoder().encode('{"name":"Zoë"}'))).replace(/=+$/, "");
    expect(decodeJwtClaims(`e30.${utf8}.sig`)).toEqual({ name: "Zoë" });
  });

  it("takes an exp that is not a time up to the year 9999 as expired, as the Python package does", () => {
    const b64 = (text: string) => btoa(text).replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_");
    const huge = `${b64('{"alg":"ES256"}')}.${b64(`{"exp":1${"0".repeat(400)}}`)}.sig`;
    for (const token of [huge, makeJwt({ exp: "soon" }), makeJwt({ exp: -1 }), makeJwt({ exp: 253_402_300_800 })]) {
      expect(accessTokenExpiresAt(token)).toBe(0);
    }
    expect(accessTokenExpiresAt(makeJwt({ exp: null }))).toBe(Infinity);
  });
});
