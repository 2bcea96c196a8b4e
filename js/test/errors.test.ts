import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { className, generate, getterName, OUTPUT_PATH, readCatalogue } from "../scripts/gen-errors.mjs";
import * as errors from "../src/errors";
import {
  AccessTokenExpired,
  AuthmwError,
  HttpStatusError,
  InvalidAccessToken,
  InvalidServerResponse,
  KnownError,
  knownErrorClasses,
  MultiFactorAuthenticationRequired,
  parseKnownError,
  PasswordRequirementsNotMet,
  PasswordTooShort,
  RefreshTokenError,
  RefreshTokenNotFoundOrExpired,
  UnsupportedError,
  VerificationCodeError,
  VerificationCodeExpired,
} from "../src/errors";
import { VERSION } from "../src/version";

const catalogue = readCatalogue();

describe("generated error classes", () => {
  it("errors.gen.ts is what the generator writes from the catalogue now", () => {
    expect(readFileSync(OUTPUT_PATH, "utf8")).toBe(generate(catalogue));
  });

  it.each(catalogue.errors.map((e) => [e.code, e] as const))("%s has its class, status and parent", (code, entry) => {
    const exported = (errors as unknown as Record<string, typeof KnownError>)[className(code)];
    expect(exported).toBeTypeOf("function");
    expect(knownErrorClasses[code]).toBe(exported);
    expect(exported.code).toBe(code);
    expect(exported.status).toBe(entry.status);
    expect(exported.abstract).toBe(entry.abstract === true);
    const parent = entry.parent === null ? KnownError : knownErrorClasses[entry.parent];
    expect(Object.getPrototypeOf(exported)).toBe(parent);

    const details = Object.fromEntries(Object.keys(entry.details).map((k) => [k, `value-of-${k}`]));
    const error = new exported({ details });
    expect(error.code).toBe(code);
    expect(error.status).toBe(entry.status);
    expect(error.name).toBe(className(code));
    expect(error).toBeInstanceOf(parent);
    expect(error).toBeInstanceOf(KnownError);
    expect(error).toBeInstanceOf(AuthmwError);
    expect(error).toBeInstanceOf(Error);
    for (const key of Object.keys(entry.details)) {
      expect((error as unknown as Record<string, unknown>)[getterName(key)]).toBe(`value-of-${key}`);
    }
  });

  const pythonModule = resolve(OUTPUT_PATH, "../../../authmw/_errors_gen.py");
  it.skipIf(!existsSync(pythonModule))("names every class and base as the Python module does", () => {
    const python = [...readFileSync(pythonModule, "utf8").matchAll(/^class (\w+)\((\w+)\):/gm)].map((m) => `${m[1]}(${m[2]})`);
    const ours = Object.values(knownErrorClasses).map((cls) => `${cls.className}(${Object.getPrototypeOf(cls).className})`);
    expect(ours.sort()).toEqual(python.sort());
  });

  it("parents catch their children", () => {
    expect(new VerificationCodeExpired()).toBeInstanceOf(VerificationCodeError);
    expect(new RefreshTokenNotFoundOrExpired()).toBeInstanceOf(RefreshTokenError);
    expect(new AccessTokenExpired()).toBeInstanceOf(InvalidAccessToken);
    expect(new PasswordTooShort()).toBeInstanceOf(PasswordRequirementsNotMet);
    expect(new PasswordTooShort()).not.toBeInstanceOf(VerificationCodeError);
  });

  it("fills the message template from details and exposes typed getters", () => {
    const tooShort = new PasswordTooShort({ details: { min_length: 8 } });
    expect(tooShort.message).toBe("Password too short. Minimum length is 8.");
    expect(tooShort.minLength).toBe(8);
    const mfa = new MultiFactorAuthenticationRequired({ details: { attempt_code: "a".repeat(45) } });
    expect(mfa.attemptCode).toBe("a".repeat(45));
    expect(mfa.toJSON()).toEqual({ code: "MULTI_FACTOR_AUTHENTICATION_REQUIRED", details: mfa.details, error: mfa.message });
  });
});

describe("isKnownError", () => {
  const classes = Object.entries(knownErrorClasses);

  it("answers as instanceof the code's class does, for every error and every code", () => {
    for (const [, made] of classes) {
      const error = new made();
      for (const [code, cls] of classes) {
        expect(errors.isKnownError(error, code), `${made.className} is ${code}`).toBe(error instanceof cls);
      }
    }
  });

  it("is false for everything that is not a catalogue error, and for unknown codes", () => {
    for (const value of [null, undefined, "EMAIL_PASSWORD_MISMATCH", { code: "EMAIL_PASSWORD_MISMATCH" }, new Error("x")]) {
      expect(errors.isKnownError(value, "EMAIL_PASSWORD_MISMATCH")).toBe(false);
    }
    expect(errors.isKnownError(new HttpStatusError(400, "x"), "EMAIL_PASSWORD_MISMATCH")).toBe(false);
    expect(errors.isKnownError(new PasswordTooShort(), "KNOWN_ERROR")).toBe(false);
    expect(errors.isKnownError(new PasswordTooShort(), "NO_SUCH_CODE")).toBe(false);
    const odd = new PasswordTooShort();
    Object.defineProperty(odd, "constructor", { value: Object });
    expect(errors.isKnownError(odd, "PASSWORD_TOO_SHORT")).toBe(false); // a chain that never reaches KnownError
  });

  it("holds for subclasses an app declares, and narrows to the typed getters", () => {
    class Mine extends PasswordTooShort {}
    const error: unknown = new Mine({ details: { min_length: 12 } });
    expect(errors.isKnownError(error, "PASSWORD_REQUIREMENTS_NOT_MET")).toBe(true);
    if (!errors.isKnownError(error, "PASSWORD_TOO_SHORT")) throw new Error("not narrowed");
    expect(error.minLength).toBe(12); // typed: PasswordTooShort's getter
  });

  it("needs nothing but the bases: the main entry exports it without the catalogue", async () => {
    const core = await import("../src/core");
    expect(core.isKnownError).toBe(errors.isKnownError);
    expect("PasswordTooShort" in core).toBe(false);
  });
});

describe("parseKnownError", () => {
  const body = (code: string, extra: Record<string, unknown> = {}) => JSON.stringify({ code, error: "msg", ...extra });

  it("builds the class of the code with the service's message, details and status", () => {
    const error = parseKnownError("PASSWORD_TOO_SHORT", 400, body("PASSWORD_TOO_SHORT", { details: { min_length: 8 } }));
    expect(error).toBeInstanceOf(PasswordTooShort);
    expect(error.message).toBe("msg");
    expect((error as PasswordTooShort).minLength).toBe(8);
  });

  it("treats a header that differs from body.code as an invalid server response", () => {
    const error = parseKnownError("USER_NOT_FOUND", 404, body("TEAM_NOT_FOUND"));
    expect(error).toBeInstanceOf(InvalidServerResponse);
    expect(error).not.toBeInstanceOf(KnownError);
    expect(error.message).toContain("USER_NOT_FOUND differs from the body code TEAM_NOT_FOUND");
  });

  it("treats a non-JSON body as an invalid server response", () => {
    expect(parseKnownError("USER_NOT_FOUND", 404, "<html>")).toBeInstanceOf(InvalidServerResponse);
    expect(parseKnownError("USER_NOT_FOUND", 404, "[]")).toBeInstanceOf(InvalidServerResponse);
  });

  it("maps an unknown code to UnsupportedError keeping the original code", () => {
    const error = parseKnownError("BRAND_NEW_CODE", 418, body("BRAND_NEW_CODE", { details: { a: 1 } }));
    expect(error).toBeInstanceOf(UnsupportedError);
    const unsupported = error as UnsupportedError;
    expect(unsupported.code).toBe("UNSUPPORTED_ERROR");
    expect(unsupported.originalErrorCode).toBe("BRAND_NEW_CODE");
    expect(unsupported.status).toBe(418);
    expect(unsupported.message).toContain("BRAND_NEW_CODE");
    expect(unsupported.message).toContain("msg");
  });

  it("does not take inherited object keys for codes", () => {
    expect(parseKnownError("constructor", 400, body("constructor"))).toBeInstanceOf(UnsupportedError);
  });
});

describe("the known errors of backend 2.8.86", () => {
  // Every code of the real service's known-errors.tsx at 2.8.86 with its status (null: a
  // parent, never sent); the same file the Python tests read.
  const backend: { codes: Record<string, number | null> } = JSON.parse(
    readFileSync(resolve(__dirname, "../../tests/data/backend-2.8.86-known-errors.json"), "utf8"),
  );
  const body = (code: string) => JSON.stringify({ code, error: "as the service words it" });

  it("are all 144 in the catalogue", () => {
    const codes = Object.keys(backend.codes);
    expect(codes).toHaveLength(144);
    expect(codes.filter((code) => !knownErrorClasses[code])).toEqual([]);
  });

  it.each(Object.entries(backend.codes))("%s is its own class with status %s", (code, status) => {
    const cls = knownErrorClasses[code];
    expect(cls.code).toBe(code);
    if (status === null) {
      expect(cls.abstract).toBe(true);
      return;
    }
    expect(cls.status).toBe(status);
    const error = parseKnownError(code, status, body(code));
    expect(error).toBeInstanceOf(cls);
    expect(error.status).toBe(status);
  });

  it("ITEM_QUANTITY_INSUFFICIENT_AMOUNT, once unknown, keeps its 400 and details", () => {
    const error = parseKnownError(
      "ITEM_QUANTITY_INSUFFICIENT_AMOUNT",
      400,
      JSON.stringify({ code: "ITEM_QUANTITY_INSUFFICIENT_AMOUNT", error: "m", details: { item_id: "i", quantity: 2 } }),
    );
    expect(error).toBeInstanceOf(errors.ItemQuantityInsufficientAmount);
    expect(error.status).toBe(400);
    expect((error as errors.ItemQuantityInsufficientAmount).quantity).toBe(2);
  });
});

describe("HttpStatusError", () => {
  it.each([
    [400, "Bad Request"],
    [401, "Unauthorized"],
    [404, "Not Found"],
    [429, "Too Many Requests"],
    [500, "Internal Server Error"],
    [503, "Service Unavailable"],
    [508, "Loop Detected"],
  ])("%i carries the reason phrase %s and the body", (status, reason) => {
    const error = new HttpStatusError(status, "body text", { url: "http://x/api", method: "GET" });
    expect(error.reason).toBe(reason);
    expect(error.message).toBe(`${status} ${reason} from GET http://x/api: body text`);
    expect(error).toBeInstanceOf(AuthmwError);
  });
});

it("VERSION matches package.json", () => {
  const pkg = JSON.parse(readFileSync(resolve(OUTPUT_PATH, "../../package.json"), "utf8")) as { version: string };
  expect(VERSION).toBe(pkg.version);
});
