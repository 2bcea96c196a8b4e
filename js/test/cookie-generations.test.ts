// Every generation of session cookie the official SDK writes (2.7, 2.8, 2.8.108) is read, and
// writing keeps the one session a site holds when authmw and the official SDK take turns.
import { describe, expect, it } from "vitest";
import {
  cookieDomain,
  readSessionCookies,
  readStoredSession,
  sessionCookieWrites,
  type CookieDocument,
} from "../src/cookies";
import { createSessionStore } from "../src/store";
import { PROJECT_ID } from "./helpers";

const NOW = Date.parse("2026-01-01T00:00:00Z");
const RAW = `stack-refresh-${PROJECT_ID}`;
const structured = (token: unknown, updated: unknown = 1) =>
  encodeURIComponent(JSON.stringify({ refresh_token: token, updated_at_millis: updated }));
const pair = (r: string, a: string) => encodeURIComponent(JSON.stringify([r, a]));
const custom = (domain: string) => {
  const alphabet = "abcdefghijklmnopqrstuvwxyz234567";
  let bits = "";
  for (const byte of new TextEncoder().encode(domain)) bits += byte.toString(2).padStart(8, "0");
  let out = "";
  for (let i = 0; i < bits.length; i += 5) out += alphabet[parseInt(bits.slice(i, i + 5).padEnd(5, "0"), 2)];
  return `custom-${out}`;
};

/** A cookie jar that applies assignments the way a browser does for one host and path. */
class Jar implements CookieDocument {
  jar = new Map<string, string>();
  writes: string[] = [];
  get cookie() {
    return [...this.jar].map(([k, v]) => `${k}=${v}`).join("; ");
  }
  set cookie(assignment: string) {
    this.writes.push(assignment);
    const [first = "", ...attributes] = assignment.split(";");
    const eq = first.indexOf("=");
    const name = first.slice(0, eq).trim();
    if (attributes.some((a) => a.trim() === "max-age=0")) this.jar.delete(name);
    else this.jar.set(name, first.slice(eq + 1));
  }
}

describe("reading every cookie generation", () => {
  it.each([
    `stack-refresh-${PROJECT_ID}--default`,
    `__Host-stack-refresh-${PROJECT_ID}--default`,
    `stack-refresh-${PROJECT_ID}--${custom("example.com")}`,
    `hexclave-refresh-${PROJECT_ID}--default`,
    `__Host-hexclave-refresh-${PROJECT_ID}--default`,
  ])("reads the structured cookie %s", (name) => {
    expect(readSessionCookies(`${name}=${structured("r8")}; stack-access=${pair("r8", "a8")}`, PROJECT_ID)).toEqual({
      refreshToken: "r8",
      accessToken: "a8",
    });
  });

  it("takes the newest structured cookie; null is oldest", () => {
    const header = [
      `stack-refresh-${PROJECT_ID}--default=${structured("old", 1)}`,
      `__Host-stack-refresh-${PROJECT_ID}--default=${structured("newest", 3)}`,
      `stack-refresh-${PROJECT_ID}--x=${structured("never", null)}`,
    ].join("; ");
    const stored = readStoredSession(header, PROJECT_ID);
    expect(stored.refreshToken).toBe("newest");
    expect(stored.refreshCookies.map(([, t]) => t)).toEqual(["newest", "old", "never"]);
  });

  it("follows the newest SDK's order across generations", () => {
    const hex = `hexclave-refresh-${PROJECT_ID}--default=${structured("hex")}`;
    const stack = `stack-refresh-${PROJECT_ID}--default=${structured("stack", 99)}`;
    const read = (...parts: string[]) => readSessionCookies(parts.join("; "), PROJECT_ID).refreshToken;
    expect(read(stack, "stack-refresh=legacy", `${RAW}=raw`, hex)).toBe("hex");
    expect(read(stack, "stack-refresh=legacy", `${RAW}=raw`)).toBe("raw");
    expect(read(stack, "stack-refresh=legacy")).toBe("legacy");
    expect(read(stack)).toBe("stack");
  });

  it("reads hexclave-access when its refresh half matches", () => {
    const hex = `hexclave-refresh-${PROJECT_ID}--d=${structured("h")}`;
    expect(readSessionCookies(`${hex}; hexclave-access=${pair("h", "ha")}`, PROJECT_ID).accessToken).toBe("ha");
    expect(readSessionCookies(`${RAW}=r; hexclave-access=${pair("x", "xa")}`, PROJECT_ID).accessToken).toBeNull();
  });

  it.each([
    "not-json",
    encodeURIComponent("{"),
    encodeURIComponent('{"refresh_token": 5}'),
    encodeURIComponent('{"refresh_token": "", "updated_at_millis": 1}'),
    encodeURIComponent('{"refresh_token": "undefined"}'),
    encodeURIComponent('{"refresh_token": "r", "updated_at_millis": "soon"}'),
    encodeURIComponent('["r", 1]'),
  ])("skips the malformed structured value %s", (value) => {
    const good = `stack-refresh-${PROJECT_ID}--good=${structured("ok", 0)}`;
    expect(readSessionCookies(`stack-refresh-${PROJECT_ID}--bad=${value}; ${good}`, PROJECT_ID).refreshToken).toBe("ok");
    expect(readSessionCookies(`stack-refresh-${PROJECT_ID}--bad=${value}`, PROJECT_ID).refreshToken).toBeNull();
  });

  it("decodes custom-domain cookie names", () => {
    expect(cookieDomain(`stack-refresh-${PROJECT_ID}--${custom("app.example.com")}`)).toBe("app.example.com");
    expect(cookieDomain(`stack-refresh-${PROJECT_ID}--default`)).toBeNull();
    expect(cookieDomain(`stack-refresh-${PROJECT_ID}--custom-!!`)).toBeNull();
  });
});

describe("writing next to other generations", () => {
  const opts = { now: NOW, secure: false };

  it("keeps another generation's cookies when rewriting the same session", () => {
    const stored: Array<[string, string]> = [
      [`hexclave-refresh-${PROJECT_ID}--default`, "r"],
      [`stack-refresh-${PROJECT_ID}--default`, "older"],
    ];
    const writes = sessionCookieWrites({ refreshToken: "r", accessToken: "a" }, PROJECT_ID, { ...opts, stored });
    expect(writes.map((w) => w.split("=")[0])).toEqual([RAW, "stack-refresh", "stack-access"]);
  });

  it("retires every other refresh cookie for a new session (a sign-in)", () => {
    const domainCookie = `stack-refresh-${PROJECT_ID}--${custom("example.com")}`;
    const stored: Array<[string, string]> = [
      [`__Host-stack-refresh-${PROJECT_ID}--default`, "previous"],
      [domainCookie, "previous"],
    ];
    const writes = sessionCookieWrites({ refreshToken: "new", accessToken: "a" }, PROJECT_ID, { ...opts, stored });
    expect(writes[0]).toMatch(new RegExp(`^${RAW}=new;`));
    expect(writes).toContain(
      `__Host-stack-refresh-${PROJECT_ID}--default=; path=/; max-age=0; expires=Thu, 01 Jan 1970 00:00:00 GMT; samesite=lax; secure`,
    );
    expect(writes.find((w) => w.startsWith(domainCookie))).toMatch(/; domain=example\.com/);
  });

  it("deletes both access cookies when the session ends (stack-access and the 2.8.108 SDK's hexclave-access)", () => {
    const stored: Array<[string, string]> = [[`hexclave-refresh-${PROJECT_ID}--default`, "r"]];
    const writes = sessionCookieWrites({ refreshToken: null, accessToken: null }, PROJECT_ID, { ...opts, stored });
    const deleted = writes.filter((w) => w.includes("; max-age=0;")).map((w) => w.split("=")[0]);
    expect(deleted).toEqual(expect.arrayContaining(["stack-access", "hexclave-access", `hexclave-refresh-${PROJECT_ID}--default`]));
    // a session that goes on keeps hexclave-access as it is (the official SDK's to rewrite)
    const kept = sessionCookieWrites({ refreshToken: "r", accessToken: "a" }, PROJECT_ID, { ...opts, stored });
    expect(kept.some((w) => w.startsWith("hexclave-access="))).toBe(false);
  });

  it("writes the structured 2.8 cookie, __Host- over https, when asked", () => {
    const plain = sessionCookieWrites({ refreshToken: "r", accessToken: "a" }, PROJECT_ID, { ...opts, format: "2.8" });
    const [name, value] = plain[0]!.split(";")[0]!.split("=");
    expect(name).toBe(`stack-refresh-${PROJECT_ID}--default`);
    expect(JSON.parse(decodeURIComponent(value!))).toEqual({ refresh_token: "r", updated_at_millis: NOW });
    const secure = sessionCookieWrites({ refreshToken: "r", accessToken: "a" }, PROJECT_ID, {
      now: NOW,
      secure: true,
      format: "2.8",
      stored: [[RAW, "r"]],
    });
    expect(secure[0]).toMatch(new RegExp(`^__Host-stack-refresh-${PROJECT_ID}--default=.*; path=/;.*; samesite=lax; secure$`));
    expect(secure[0]).not.toMatch(/domain=/);
    expect(secure.some((w) => w.startsWith(`${RAW}=;`))).toBe(true); // the raw cookie of the same session retires
  });

  it("a store on a page shared with the official 2.8 SDK keeps one session", () => {
    const jar = new Jar();
    // The official SDK wrote its structured cookie (and deleted the 2.7 names).
    jar.cookie = `stack-refresh-${PROJECT_ID}--default=${structured("sdk-session", NOW - 1000)}; path=/`;
    const store = createSessionStore({ projectId: PROJECT_ID, refresh: async () => null, cookies: jar, now: () => NOW });
    expect(store.getState().refreshToken).toBe("sdk-session");
    store.setState({ accessToken: "a.b.c" }); // a refresh of the same session
    expect(jar.jar.has(`stack-refresh-${PROJECT_ID}--default`)).toBe(true);
    expect(readSessionCookies(jar.cookie, PROJECT_ID)).toEqual({ refreshToken: "sdk-session", accessToken: "a.b.c" });
    store.setTokens({ refreshToken: "authmw-session", accessToken: "x.y.z" }); // a sign-in through authmw
    expect(jar.jar.has(`stack-refresh-${PROJECT_ID}--default`)).toBe(false);
    expect(readSessionCookies(jar.cookie, PROJECT_ID).refreshToken).toBe("authmw-session");
    store.clear(); // sign-out clears every generation
    expect(readSessionCookies(jar.cookie, PROJECT_ID)).toEqual({ refreshToken: null, accessToken: null });
  });
});
