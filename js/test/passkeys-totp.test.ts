import { TOTP as LibTotp, Secret } from "otpauth";
import { describe, expect, it } from "vitest";
import { InvalidTotpCode, PasskeyAuthenticationFailed, PasskeyRegistrationFailed, PasskeyWebauthnError } from "../src/errors";
import {
  PASSKEY_RP_PLACEHOLDER,
  authenticationOptions,
  checkTotpSetupCode,
  createTotpSetup,
  isPasskeyCancel,
  passkeyHostname,
  registrationOptions,
  webauthnError,
} from "../src/protocol";

const b64url = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64url");

function creation(overrides: Record<string, unknown> = {}) {
  return {
    challenge: "Y2hhbGxlbmdl",
    rp: { name: "Demo", id: PASSKEY_RP_PLACEHOLDER },
    user: { id: b64url(new TextEncoder().encode("0b7c9a3e-5b1f-4a43-9f39-3f1d2c6b8e11")), name: "a@b.co", displayName: "a@b.co" },
    pubKeyCredParams: [{ alg: -7, type: "public-key" as const }],
    ...overrides,
  };
}

describe("passkey options", () => {
  it("replace the placeholder RP id with the page's hostname", () => {
    expect(registrationOptions(creation(), "localhost").rp).toEqual({ name: "Demo", id: "localhost" });
    const request = { challenge: "Y2g", rpId: PASSKEY_RP_PLACEHOLDER, allowCredentials: [] };
    expect(authenticationOptions(request, "app.example.com")).toEqual({ ...request, rpId: "app.example.com" });
  });

  it("refuse options without the placeholder (service-api C5)", () => {
    expect(() => registrationOptions(creation({ rp: { name: "x", id: "evil.example" } }), "localhost")).toThrow(
      PasskeyRegistrationFailed,
    );
    expect(() => authenticationOptions({ challenge: "Y2g", rpId: "evil.example" }, "localhost")).toThrow(
      PasskeyAuthenticationFailed,
    );
  });

  it("need a user id of 1 to 64 bytes", () => {
    expect(() => registrationOptions(creation({ user: { id: "", name: "a", displayName: "a" } }), "localhost")).toThrow(
      /1 to 64 bytes long \(it is 0\)/,
    );
    const long = b64url(new Uint8Array(65));
    expect(() => registrationOptions(creation({ user: { id: long, name: "a", displayName: "a" } }), "localhost")).toThrow(
      /it is 65/,
    );
    const max = b64url(new Uint8Array(64));
    expect(registrationOptions(creation({ user: { id: max, name: "a", displayName: "a" } }), "localhost").user.id).toBe(max);
  });

  it("need a hostname that is a domain name or localhost", () => {
    expect(passkeyHostname("LocalHost", "authentication")).toBe("localhost");
    expect(passkeyHostname("a-b.example.co.uk", "registration")).toBe("a-b.example.co.uk");
    for (const bad of ["127.0.0.1", "[::1]", "intranet", "-a.example.com", "a..example.com", ""]) {
      expect(() => passkeyHostname(bad, "authentication"), bad).toThrow(PasskeyAuthenticationFailed);
    }
    expect(() => registrationOptions(creation(), "127.0.0.1")).toThrow(/domain name or localhost, not "127.0.0.1"/);
  });
});

describe("webauthnError", () => {
  it("keeps the helper's classification, else the DOMException name", () => {
    const aborted = Object.assign(new Error("Authentication ceremony was sent an abort signal"), {
      name: "AbortError",
      code: "ERROR_CEREMONY_ABORTED",
    });
    const mapped = webauthnError(aborted);
    expect(mapped).toBeInstanceOf(PasskeyWebauthnError);
    expect(mapped.details).toEqual({ message: aborted.message, code: "ERROR_CEREMONY_ABORTED" });
    expect(isPasskeyCancel(mapped)).toBe(true);

    const passthrough = Object.assign(new Error("The operation either timed out or was not allowed."), {
      code: "ERROR_PASSTHROUGH_SEE_CAUSE_PROPERTY",
      cause: new DOMException("not allowed", "NotAllowedError"),
    });
    expect(webauthnError(passthrough).details.code).toBe("NotAllowedError");
    expect(isPasskeyCancel(webauthnError(passthrough))).toBe(true);

    const previously = Object.assign(new Error("already registered"), { code: "ERROR_AUTHENTICATOR_PREVIOUSLY_REGISTERED" });
    expect(isPasskeyCancel(webauthnError(previously))).toBe(false);
    const known = new PasskeyAuthenticationFailed({ message: "Passkey not found" });
    expect(webauthnError(known)).toBe(known);
  });
});

describe("TOTP set-up", () => {
  it("gives a 20-byte secret, its otpauth URI with issuer and account, and checks codes", async () => {
    const setup = await createTotpSetup("My App", "ann@example.com");
    expect(Buffer.from(setup.secretBase64, "base64")).toHaveLength(20);
    expect(Buffer.from(setup.secretBase64, "base64")).toEqual(Buffer.from(Secret.fromBase32(setup.secret).buffer));
    const uri = new URL(setup.uri);
    expect(uri.protocol).toBe("otpauth:");
    expect(uri.host + decodeURIComponent(uri.pathname)).toBe("totp/My App:ann@example.com");
    expect(uri.searchParams.get("issuer")).toBe("My App");
    expect(uri.searchParams.get("secret")).toBe(setup.secret);

    const now = 1_700_000_015_000;
    const code = (at: number) => new LibTotp({ secret: Secret.fromBase32(setup.secret) }).generate({ timestamp: at });
    await expect(checkTotpSetupCode(setup, code(now), now)).resolves.toBeUndefined();
    await expect(checkTotpSetupCode(setup, ` ${code(now).slice(0, 3)} ${code(now).slice(3)} `, now)).resolves.toBeUndefined();
    await expect(checkTotpSetupCode(setup, code(now - 30_000), now)).resolves.toBeUndefined(); // one step of slack
    const stale = code(now - 90_000);
    if (stale !== code(now) && stale !== code(now - 30_000) && stale !== code(now + 30_000)) {
      await expect(checkTotpSetupCode(setup, stale, now)).rejects.toBeInstanceOf(InvalidTotpCode);
    }
    await expect(checkTotpSetupCode(setup, "12345", now)).rejects.toThrow(/6-digit code/);
  });
});
