import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { readSessionCookies, sessionCookieWrites, type CookieSameSite } from "../src/cookies";
import { ConnectionError, HttpStatusError } from "../src/errors";
import { createSessionStore, type SessionStoreOptions } from "../src/store";
import {
  clearDocumentCookies,
  fakeFetch,
  jsonResponse,
  knownErrorResponse,
  makeJwt,
  networkFailure,
  PROJECT_ID,
  tokenValidFor,
  transportOver,
} from "./helpers";

const NOW = Date.parse("2026-01-01T00:00:00Z");
const REFRESH = `stack-refresh-${PROJECT_ID}`;

/** A document whose cookie assignments are recorded verbatim and applied to a simple jar. */
class RecordingDocument {
  writes: string[] = [];
  jar = new Map<string, string>();
  get cookie() {
    return [...this.jar].map(([k, v]) => `${k}=${v}`).join("; ");
  }
  set cookie(assignment: string) {
    this.writes.push(assignment);
    const [pair = "", ...attributes] = assignment.split(";");
    const eq = pair.indexOf("=");
    const name = pair.slice(0, eq).trim();
    if (attributes.some((a) => a.trim() === "max-age=0")) this.jar.delete(name);
    else this.jar.set(name, pair.slice(eq + 1));
  }
}

function setup(options: Partial<SessionStoreOptions> = {}) {
  const f = fakeFetch();
  const transport = transportOver(f.fetch);
  const doc = new RecordingDocument();
  const store = createSessionStore({
    projectId: PROJECT_ID,
    refresh: (rt) => transport.refreshAccessToken(rt),
    cookies: doc,
    isSecure: () => false,
    now: () => NOW,
    ...options,
  });
  return { store, doc, ...f };
}

describe("cookie format (service-api A4.1)", () => {
  it("writes the refresh cookie, deletes the legacy one and writes the access pair, percent-encoded", () => {
    const { store, doc } = setup();
    store.setTokens({ refreshToken: "rt1", accessToken: "a.b.c" });
    expect(doc.writes).toEqual([
      `${REFRESH}=rt1; path=/; max-age=31536000; expires=Fri, 01 Jan 2027 00:00:00 GMT; samesite=lax`,
      "stack-refresh=; path=/; max-age=0; expires=Thu, 01 Jan 1970 00:00:00 GMT; samesite=lax",
      "stack-access=%5B%22rt1%22%2C%22a.b.c%22%5D; path=/; max-age=86400; expires=Fri, 02 Jan 2026 00:00:00 GMT; samesite=lax",
    ]);
  });

  it("adds secure on https pages only, never httponly (pages read the cookies)", () => {
    const writes = sessionCookieWrites({ refreshToken: "r", accessToken: "a" }, PROJECT_ID, { now: NOW, secure: true });
    expect(writes.every((w) => w.endsWith("; samesite=lax; secure"))).toBe(true);
    expect(writes.join()).not.toMatch(/httponly/i);
  });

  it("writes the SameSite attribute it is given; none is always secure", () => {
    const strict = sessionCookieWrites({ refreshToken: "r", accessToken: null }, PROJECT_ID, {
      now: NOW,
      secure: false,
      sameSite: "strict",
    });
    expect(strict.every((w) => w.endsWith("; samesite=strict"))).toBe(true);
    const none = sessionCookieWrites({ refreshToken: "r", accessToken: "a" }, PROJECT_ID, {
      now: NOW,
      secure: false,
      sameSite: "none",
    });
    expect(none.every((w) => w.endsWith("; samesite=none; secure"))).toBe(true);
  });

  it("cookieSameSite is checked when the store starts", () => {
    const doc = { cookie: "" };
    const start = (cookieSameSite: string, https: boolean) =>
      createSessionStore({
        projectId: PROJECT_ID,
        refresh: async () => null,
        cookies: doc,
        isSecure: () => https,
        cookieSameSite: cookieSameSite as CookieSameSite,
      });
    expect(() => start("sometimes", true)).toThrow(/cookieSameSite must be "lax", "strict" or "none"/);
    expect(() => start("none", false)).toThrow(/cookieSameSite "none" needs secure cookies/);
    const store = start("Strict", false);
    store.setTokens({ refreshToken: "r" });
    expect(doc.cookie).toMatch(/; samesite=strict$/);
    start("none", true).setTokens({ refreshToken: "r2" });
    expect(doc.cookie).toMatch(/; samesite=none; secure$/);
  });

  it("deletes both cookies when the tokens are cleared", () => {
    const { store, doc } = setup();
    store.setTokens({ refreshToken: "rt1", accessToken: "a" });
    doc.writes = [];
    store.clear();
    expect(doc.writes).toEqual([
      `${REFRESH}=; path=/; max-age=0; expires=Thu, 01 Jan 1970 00:00:00 GMT; samesite=lax`,
      "stack-refresh=; path=/; max-age=0; expires=Thu, 01 Jan 1970 00:00:00 GMT; samesite=lax",
      "hexclave-access=; path=/; max-age=0; expires=Thu, 01 Jan 1970 00:00:00 GMT; samesite=lax",
      "stack-access=; path=/; max-age=0; expires=Thu, 01 Jan 1970 00:00:00 GMT; samesite=lax",
    ]);
  });

  it("reads percent-encoded and raw values", () => {
    const encoded = `${REFRESH}=rt1; stack-access=${encodeURIComponent('["rt1","at1"]')}`;
    expect(readSessionCookies(encoded, PROJECT_ID)).toEqual({ refreshToken: "rt1", accessToken: "at1" });
    const raw = `${REFRESH}=rt1; stack-access=["rt1","at1"]`;
    expect(readSessionCookies(raw, PROJECT_ID)).toEqual({ refreshToken: "rt1", accessToken: "at1" });
    expect(readSessionCookies(`${REFRESH}=r%zz`, PROJECT_ID).refreshToken).toBe("r%zz");
  });

  it("falls back to the legacy stack-refresh cookie", () => {
    expect(readSessionCookies("stack-refresh=old", PROJECT_ID)).toEqual({ refreshToken: "old", accessToken: null });
    expect(readSessionCookies(`stack-refresh=old; ${REFRESH}=new`, PROJECT_ID).refreshToken).toBe("new");
  });

  it("uses the access token only when it belongs to the current refresh token", () => {
    const read = (access: string) => readSessionCookies(`${REFRESH}=rt1; stack-access=${access}`, PROJECT_ID).accessToken;
    expect(read(encodeURIComponent('["other","at1"]'))).toBeNull();
    expect(read("at1")).toBeNull(); // not a JSON array
    expect(read(encodeURIComponent(' ["rt1","at1"]'))).toBeNull(); // must start with ["
    expect(read(encodeURIComponent('["rt1",'))).toBeNull();
    expect(readSessionCookies(`stack-access=${encodeURIComponent('["rt1","at1"]')}`, PROJECT_ID)).toEqual({
      refreshToken: null,
      accessToken: null,
    });
  });

  it('rejects the string "undefined" as a token', () => {
    expect(readSessionCookies(`${REFRESH}=undefined`, PROJECT_ID).refreshToken).toBeNull();
    expect(readSessionCookies(`${REFRESH}=rt; stack-access=["rt","undefined"]`, PROJECT_ID).accessToken).toBeNull();
    const { store } = setup();
    store.setTokens({ refreshToken: "undefined", accessToken: "x" });
    expect(store.getState()).toEqual({ refreshToken: null, accessToken: null });
  });

  it("keeps no access token without a refresh token", () => {
    const { store } = setup();
    store.setTokens({ accessToken: "x" });
    expect(store.getState()).toEqual({ refreshToken: null, accessToken: null });
  });

  it("starts from the cookies", () => {
    const doc = new RecordingDocument();
    doc.jar.set(REFRESH, "rt1");
    doc.jar.set("stack-access", encodeURIComponent('["rt1","at1"]'));
    const { store } = setup({ cookies: doc });
    expect(store.getState()).toEqual({ refreshToken: "rt1", accessToken: "at1" });
  });
});

describe("cookie polling (real document.cookie)", () => {
  beforeEach(() => {
    vi.useFakeTimers();
    clearDocumentCookies();
  });
  afterEach(() => {
    vi.useRealTimers();
    clearDocumentCookies();
  });

  it("picks up cookies another writer (e.g. the Python middleware) changed, within 100 ms", () => {
    const { store } = setup({ cookies: document });
    store.setTokens({ refreshToken: "rt1", accessToken: "at1" });
    expect(document.cookie).toContain(`${REFRESH}=rt1`);
    const stop = store.startPolling();
    // The server refreshed the access token and rewrote stack-access (encoded as Python quotes it).
    document.cookie = `stack-access=${encodeURIComponent('["rt1","at2"]')}; path=/`;
    expect(store.getState().accessToken).toBe("at1");
    vi.advanceTimersByTime(100);
    expect(store.getState()).toEqual({ refreshToken: "rt1", accessToken: "at2" });
    // Another tab signed out.
    document.cookie = `${REFRESH}=; path=/; max-age=0`;
    vi.advanceTimersByTime(100);
    expect(store.getState()).toEqual({ refreshToken: null, accessToken: null });
    stop();
    document.cookie = `${REFRESH}=rt3; path=/`;
    vi.advanceTimersByTime(500);
    expect(store.getState().refreshToken).toBeNull();
  });

  it("writes cookies that readSessionCookies reads back", () => {
    const { store } = setup({ cookies: document });
    store.setTokens({ refreshToken: "rt1", accessToken: "x.y.z" });
    expect(readSessionCookies(document.cookie, PROJECT_ID)).toEqual({ refreshToken: "rt1", accessToken: "x.y.z" });
  });

  // Attack on another tab's session: a tab whose poll has not run yet (a background tab) is
  // told its access token was refused after another tab signed in as someone else.
  it("a refused access token of a session the cookies no longer hold neither deletes their session nor writes the old one back", () => {
    const behind = setup({ cookies: document }).store;
    behind.setTokens({ refreshToken: "rt-ada", accessToken: "at-ada" });
    const other = setup({ cookies: document }).store;
    other.syncFromCookies();
    other.setTokens({ refreshToken: "rt-bea", accessToken: "at-bea" }); // another tab signs Bea in
    behind.markAccessTokenExpired("at-ada");
    expect(readSessionCookies(document.cookie, PROJECT_ID)).toEqual({ refreshToken: "rt-bea", accessToken: "at-bea" });
    expect(behind.getState()).toEqual({ refreshToken: "rt-bea", accessToken: "at-bea" });
  });

  it("control: a refused access token of the cookies' session is dropped from them, the session kept", () => {
    const { store } = setup({ cookies: document });
    store.setTokens({ refreshToken: "rt-ada", accessToken: "at-ada" });
    store.markAccessTokenExpired("at-ada");
    expect(store.getState()).toEqual({ refreshToken: "rt-ada", accessToken: null });
    expect(readSessionCookies(document.cookie, PROJECT_ID)).toEqual({ refreshToken: "rt-ada", accessToken: null });
  });

  it("counts polling references", () => {
    const { store } = setup({ cookies: document });
    const stopA = store.startPolling();
    const stopB = store.startPolling();
    stopA();
    stopA();
    document.cookie = `${REFRESH}=rt9; path=/`;
    vi.advanceTimersByTime(100);
    expect(store.getState().refreshToken).toBe("rt9");
    stopB();
  });
});

describe("getAccessToken", () => {
  it("returns null without a refresh token, without calling the service", async () => {
    const { store, calls } = setup();
    expect(await store.getAccessToken()).toBeNull();
    expect(calls).toHaveLength(0);
  });

  it("returns a token with more than 20 s left as it is", async () => {
    const { store, calls } = setup();
    const token = tokenValidFor(21, NOW);
    store.setTokens({ refreshToken: "rt", accessToken: token });
    expect(await store.getAccessToken()).toBe(token);
    expect(calls).toHaveLength(0);
  });

  it("uses a token with exactly 20 s left and refreshes one with 19.95 s left (service-api C4)", async () => {
    const { store, calls, reply } = setup();
    const exact = makeJwt({ sub: "u", exp: NOW / 1000 + 20 });
    store.setTokens({ refreshToken: "rt", accessToken: exact });
    expect(await store.getAccessToken()).toBe(exact);
    expect(calls).toHaveLength(0);
    const short = makeJwt({ sub: "u", exp: NOW / 1000 + 19.95 });
    const fresh = tokenValidFor(600, NOW);
    store.setTokens({ refreshToken: "rt", accessToken: short });
    reply(jsonResponse({ access_token: fresh }));
    expect(await store.getAccessToken()).toBe(fresh);
    expect(calls).toHaveLength(1);
  });

  it("treats a token without exp as never expiring", async () => {
    const { store, calls } = setup();
    const token = makeJwt({ sub: "u" });
    store.setTokens({ refreshToken: "rt", accessToken: token });
    expect(await store.getAccessToken({ minValidityMs: 59_999 })).toBe(token);
    expect(calls).toHaveLength(0);
  });

  it("refreshes a token with less than the required validity and stores the new one", async () => {
    const { store, calls, reply, doc } = setup();
    const fresh = tokenValidFor(600, NOW);
    store.setTokens({ refreshToken: "rt", accessToken: tokenValidFor(19, NOW) });
    reply(jsonResponse({ access_token: fresh }));
    expect(await store.getAccessToken()).toBe(fresh);
    expect(calls).toHaveLength(1);
    expect(store.getState().accessToken).toBe(fresh);
    expect(doc.writes.at(-1)).toContain(encodeURIComponent(JSON.stringify(["rt", fresh])));
  });

  it("refuses to require 60 s or more of validity", async () => {
    const { store } = setup();
    await expect(store.getAccessToken({ minValidityMs: 60_000 })).rejects.toBeInstanceOf(RangeError);
    await expect(store.getAccessToken({ minValidityMs: 59_999 })).resolves.toBeNull();
  });

  it("shares one refresh between concurrent callers", async () => {
    const { store, calls, reply } = setup();
    const fresh = tokenValidFor(600, NOW);
    store.setTokens({ refreshToken: "rt" });
    let release!: () => void;
    reply(() => new Promise<Response>((resolve) => (release = () => resolve(jsonResponse({ access_token: fresh })))));
    const all = Promise.all([store.getAccessToken(), store.getAccessToken(), store.getTokens()]);
    await vi.waitFor(() => expect(calls).toHaveLength(1));
    release();
    expect(await all).toEqual([fresh, fresh, { accessToken: fresh, refreshToken: "rt", allowAnonymousUser: false }]);
    expect(calls).toHaveLength(1);
  });

  it("clears both tokens when the service rejects the refresh token", async () => {
    const { store, reply, doc } = setup();
    store.setTokens({ refreshToken: "rt", accessToken: tokenValidFor(5, NOW) });
    reply(knownErrorResponse("REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED", 401, "gone", undefined, { override: false }));
    expect(await store.getAccessToken()).toBeNull();
    expect(store.getState()).toEqual({ refreshToken: null, accessToken: null });
    expect(doc.writes.slice(-2)).toEqual([
      "hexclave-access=; path=/; max-age=0; expires=Thu, 01 Jan 1970 00:00:00 GMT; samesite=lax",
      "stack-access=; path=/; max-age=0; expires=Thu, 01 Jan 1970 00:00:00 GMT; samesite=lax",
    ]);
  });

  it("keeps the tokens when the refresh fails on the network", async () => {
    const { store, reply } = setup();
    const stale = tokenValidFor(5, NOW);
    store.setTokens({ refreshToken: "rt", accessToken: stale });
    for (let i = 0; i < 5; i++) reply(networkFailure());
    reply(networkFailure()); // health check
    await expect(store.getAccessToken()).rejects.toBeInstanceOf(ConnectionError);
    expect(store.getState()).toEqual({ refreshToken: "rt", accessToken: stale });
  });

  it("keeps the tokens when the refresh fails with a 5xx", async () => {
    const { store, reply } = setup();
    store.setTokens({ refreshToken: "rt" });
    reply(new Response("unavailable", { status: 503 }));
    await expect(store.getAccessToken()).rejects.toBeInstanceOf(HttpStatusError);
    expect(store.getState().refreshToken).toBe("rt");
  });

  it("refreshes after markAccessTokenExpired, only for that token", async () => {
    const { store, reply, calls } = setup();
    const current = tokenValidFor(600, NOW);
    store.setTokens({ refreshToken: "rt", accessToken: current });
    store.markAccessTokenExpired("some-other-token");
    expect(await store.getAccessToken()).toBe(current);
    store.markAccessTokenExpired(current);
    const fresh = tokenValidFor(601, NOW);
    reply(jsonResponse({ access_token: fresh }));
    expect(await store.getAccessToken()).toBe(fresh);
    expect(calls).toHaveLength(1);
  });

  it("does not apply a refresh result to a session that changed meanwhile", async () => {
    const { store, reply } = setup();
    store.setTokens({ refreshToken: "rt-old" });
    let release!: () => void;
    reply(() => new Promise<Response>((resolve) => (release = () => resolve(jsonResponse({ access_token: "old-access" })))));
    const pending = store.getAccessToken();
    await vi.waitFor(() => expect(release).toBeTypeOf("function"));
    const newAccess = tokenValidFor(600, NOW, "user-2");
    store.setTokens({ refreshToken: "rt-new", accessToken: newAccess });
    release();
    expect(await pending).toBe(newAccess);
    expect(store.getState()).toEqual({ refreshToken: "rt-new", accessToken: newAccess });
  });
});
