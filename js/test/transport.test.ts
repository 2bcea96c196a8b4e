import { describe, expect, it, vi } from "vitest";
import {
  AccessTokenExpired,
  ConnectionError,
  HttpStatusError,
  InvalidServerResponse,
  UnsupportedError,
  UserNotFound,
} from "../src/errors";
import { MAX_WAIT_MS, Transport, type TokenProvider, type TransportOptions } from "../src/transport";
import { VERSION } from "../src/version";
import {
  BASE_URL,
  fakeFetch,
  jsonResponse,
  knownErrorResponse,
  networkFailure,
  PCK,
  PROJECT_ID,
  recordingSleep,
} from "./helpers";

function setup(options: Partial<TransportOptions> = {}) {
  const f = fakeFetch();
  const sleep = recordingSleep();
  const transport = new Transport({
    projectId: PROJECT_ID,
    publishableClientKey: PCK,
    baseUrl: `${BASE_URL}/`,
    fetch: f.fetch,
    sleep: sleep.sleep,
    random: () => 0.25,
    now: () => Date.parse("2026-01-01T00:00:00Z"),
    isOnline: () => true,
    ...options,
  });
  return { transport, ...f, waits: sleep.waits };
}

const session = (accessToken: string | null, refreshToken: string | null = "rt"): TokenProvider & { expired: string[] } => {
  const expired: string[] = [];
  let access = accessToken;
  return {
    expired,
    getTokens: async () => ({ accessToken: access, refreshToken }),
    markAccessTokenExpired(token) {
      expired.push(token);
      access = "fresh-access";
    },
  };
};

describe("request headers", () => {
  it("sends the client-tier headers, omits credentials and cache", async () => {
    const { transport, calls, reply } = setup();
    reply(jsonResponse({ ok: true }));
    const res = await transport.request({ method: "POST", path: "/users/me", body: { a: 1 }, session: session("at", "rt") });
    expect(res.body).toEqual({ ok: true });
    const [call] = calls;
    expect(call!.url).toBe(`${BASE_URL}/api/v1/users/me`);
    expect(call!.headers).toMatchObject({
      "x-stack-project-id": PROJECT_ID,
      "x-stack-access-type": "client",
      "x-stack-client-version": `js @authmw/react@${VERSION}`,
      "x-stack-override-error-status": "true",
      "x-stack-publishable-client-key": PCK,
      "x-stack-access-token": "at",
      "x-stack-refresh-token": "rt",
      "content-type": "application/json",
    });
    expect(call!.headers["x-stack-random-nonce"]).toMatch(/^[0-9a-hjkmnp-tv-z]{45}$/);
    expect(call!.body).toBe('{"a":1}');
    expect(call!.init.credentials).toBe("omit");
    expect(call!.init.cache).toBe("no-store");
  });

  it("sends no token headers and no content-type for an anonymous GET, and a new nonce each time", async () => {
    const { transport, calls, reply } = setup();
    reply(jsonResponse({}), jsonResponse({}));
    await transport.request({ method: "GET", path: "/projects/current" });
    await transport.request({ method: "GET", path: "/projects/current" });
    expect(calls[0]!.headers).not.toHaveProperty("x-stack-access-token");
    expect(calls[0]!.headers).not.toHaveProperty("x-stack-refresh-token");
    expect(calls[0]!.headers).not.toHaveProperty("content-type");
    expect(calls[0]!.headers["x-stack-random-nonce"]).not.toBe(calls[1]!.headers["x-stack-random-nonce"]);
  });
});

describe("responses", () => {
  it("uses x-stack-actual-status and parses the known error", async () => {
    const { transport, reply } = setup();
    reply(knownErrorResponse("USER_NOT_FOUND", 404, "User not found."));
    const error = await transport.request({ method: "GET", path: "/users/x" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UserNotFound);
    expect((error as UserNotFound).status).toBe(404);
    expect((error as UserNotFound).message).toBe("User not found.");
  });

  it("rejects a known-error header that differs from the body code", async () => {
    const { transport, reply } = setup();
    reply(
      jsonResponse(
        { code: "TEAM_NOT_FOUND", error: "x" },
        { headers: { "x-stack-known-error": "USER_NOT_FOUND", "x-stack-actual-status": "404" } },
      ),
    );
    await expect(transport.request({ method: "GET", path: "/users/x" })).rejects.toBeInstanceOf(InvalidServerResponse);
  });

  it("maps an unknown code to UnsupportedError", async () => {
    const { transport, reply } = setup();
    reply(knownErrorResponse("SOMETHING_NEW", 400));
    const error = await transport.request({ method: "GET", path: "/x" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnsupportedError);
    expect((error as UnsupportedError).originalErrorCode).toBe("SOMETHING_NEW");
  });

  it("raises HttpStatusError with status and body for other non-2xx answers (overridden or not)", async () => {
    const { transport, reply, calls } = setup();
    reply(
      new Response("Client can only list teams for their own user.", {
        status: 200,
        headers: { "x-stack-actual-status": "403", "content-type": "text/plain" },
      }),
      new Response("boom", { status: 500 }),
    );
    const first = await transport.request({ method: "GET", path: "/teams" }).catch((e: unknown) => e);
    expect(first).toBeInstanceOf(HttpStatusError);
    expect((first as HttpStatusError).status).toBe(403);
    expect((first as HttpStatusError).message).toContain("403 Forbidden");
    expect((first as HttpStatusError).body).toContain("their own user");
    const second = await transport.request({ method: "GET", path: "/teams" }).catch((e: unknown) => e);
    expect((second as HttpStatusError).status).toBe(500);
    expect(calls).toHaveLength(2); // 5xx is not retried
  });

  it("expects JSON by default (empty = null), text only when asked", async () => {
    const { transport, reply } = setup();
    reply(
      new Response("hello", { headers: { "content-type": "text/plain" } }),
      new Response(null, { status: 200 }),
      new Response("<html>not json</html>", { headers: { "content-type": "text/plain" } }),
    );
    expect((await transport.request({ method: "GET", path: "/a", responseType: "text" })).body).toBe("hello");
    expect((await transport.request({ method: "GET", path: "/a" })).body).toBeNull();
    await expect(transport.request({ method: "GET", path: "/a" })).rejects.toBeInstanceOf(InvalidServerResponse);
  });
});

describe("retries", () => {
  it("retries a network failure of GET 5 times with 1000 ms x 2^i x random(0.5..1.5) waits", async () => {
    const { transport, reply, calls, waits } = setup({ random: () => 0.25 });
    reply(networkFailure(), networkFailure(), networkFailure(), networkFailure(), jsonResponse({ ok: 1 }));
    const res = await transport.request({ method: "GET", path: "/users/me" });
    expect(res.body).toEqual({ ok: 1 });
    expect(calls).toHaveLength(5);
    expect(waits).toEqual([750, 1500, 3000, 6000]);
  });

  it.each(["PUT", "DELETE"] as const)("retries %s on network failure", async (method) => {
    const { transport, reply, calls } = setup();
    reply(networkFailure(), jsonResponse({}));
    await transport.request({ method, path: "/x", body: {} });
    expect(calls).toHaveLength(2);
  });

  it("gives up after 5 attempts with a ConnectionError carrying diagnostics and the health check", async () => {
    const { transport, reply, calls, waits } = setup({ random: () => 0 });
    reply(networkFailure(), networkFailure(), networkFailure(), networkFailure(), networkFailure());
    reply(jsonResponse({ status: "ok" }));
    const error = (await transport.request({ method: "GET", path: "/users/me" }).catch((e: unknown) => e)) as ConnectionError;
    expect(error).toBeInstanceOf(ConnectionError);
    expect(waits).toEqual([500, 1000, 2000, 4000]);
    expect(calls.map((c) => c.url)).toEqual([...Array(5).fill(`${BASE_URL}/api/v1/users/me`), `${BASE_URL}/health`]);
    expect(error.offline).toBe(false);
    expect(error.diagnostics[0]).toContain("failed 5 time(s)");
    expect(error.diagnostics.at(-1)).toBe(`GET ${BASE_URL}/health: 200 {"status":"ok"}`);
  });

  it.each(["POST", "PATCH"] as const)("raises ConnectionError at once for %s, with the offline hint", async (method) => {
    const { transport, reply, calls, waits } = setup({ isOnline: () => false });
    reply(networkFailure(), networkFailure());
    const error = (await transport.request({ method, path: "/x", body: {} }).catch((e: unknown) => e)) as ConnectionError;
    expect(error).toBeInstanceOf(ConnectionError);
    expect(waits).toEqual([]);
    expect(calls).toHaveLength(2); // the request, then the health check
    expect(error.offline).toBe(true);
    expect(error.message).toContain("offline");
    expect(error.diagnostics.at(-1)).toBe(`GET ${BASE_URL}/health failed: Failed to fetch`);
  });

  it("does not retry errors that are not network failures", async () => {
    const { transport, reply } = setup();
    reply(() => {
      throw new DOMException("aborted", "AbortError");
    });
    await expect(transport.request({ method: "GET", path: "/x" })).rejects.toThrow("aborted");
  });

  it("waits Retry-After seconds on 429, then retries", async () => {
    const { transport, reply, waits } = setup();
    reply(new Response("slow down", { status: 429, headers: { "retry-after": "3" } }), jsonResponse({ ok: 1 }));
    expect((await transport.request({ method: "POST", path: "/x", body: {} })).body).toEqual({ ok: 1 });
    expect(waits).toEqual([3000]);
  });

  it("waits until a Retry-After HTTP date on 429 (overridden status too)", async () => {
    const { transport, reply, waits } = setup();
    reply(
      new Response("", { status: 200, headers: { "x-stack-actual-status": "429", "retry-after": "Thu, 01 Jan 2026 00:00:10 GMT" } }),
      jsonResponse({}),
    );
    await transport.request({ method: "GET", path: "/x" });
    expect(waits).toEqual([10_000]);
  });

  it("falls back to backoff without Retry-After and caps every wait", async () => {
    const { transport, reply, waits } = setup();
    reply(
      new Response("", { status: 429 }),
      new Response("", { status: 429, headers: { "retry-after": "99999999999" } }),
      jsonResponse({}),
    );
    await transport.request({ method: "GET", path: "/x" });
    expect(waits).toEqual([750, MAX_WAIT_MS]);
  });

  it("raises HttpStatusError when 429 persists through every attempt", async () => {
    const { transport, reply, calls } = setup();
    for (let i = 0; i < 5; i++) reply(new Response("", { status: 429, headers: { "retry-after": "0" } }));
    const error = await transport.request({ method: "GET", path: "/x" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HttpStatusError);
    expect((error as HttpStatusError).status).toBe(429);
    expect(calls).toHaveLength(5);
  });

  it("retries a 508 whose body has the loop marker, but not another 508", async () => {
    const { transport, reply, calls, waits } = setup();
    reply(new Response("INFINITE_LOOP_DETECTED", { status: 508 }), jsonResponse({ ok: 1 }));
    await transport.request({ method: "POST", path: "/x", body: {} });
    expect(calls).toHaveLength(2);
    expect(waits).toEqual([750]);
    reply(new Response("loop", { status: 508 }));
    await expect(transport.request({ method: "GET", path: "/x" })).rejects.toBeInstanceOf(HttpStatusError);
  });
});

describe("invalid access token", () => {
  it("marks the token expired and retries once with the new one", async () => {
    const { transport, reply, calls } = setup();
    const s = session("stale");
    reply(knownErrorResponse("ACCESS_TOKEN_EXPIRED", 401), jsonResponse({ ok: 1 }));
    expect((await transport.request({ method: "GET", path: "/users/me", session: s })).body).toEqual({ ok: 1 });
    expect(s.expired).toEqual(["stale"]);
    expect(calls.map((c) => c.headers["x-stack-access-token"])).toEqual(["stale", "fresh-access"]);
  });

  it("retries only once", async () => {
    const { transport, reply, calls } = setup();
    reply(knownErrorResponse("UNPARSABLE_ACCESS_TOKEN", 401), knownErrorResponse("ACCESS_TOKEN_EXPIRED", 401));
    await expect(transport.request({ method: "GET", path: "/users/me", session: session("a") })).rejects.toBeInstanceOf(
      AccessTokenExpired,
    );
    expect(calls).toHaveLength(2);
  });

  it("does not retry without a session", async () => {
    const { transport, reply, calls } = setup();
    reply(knownErrorResponse("ACCESS_TOKEN_EXPIRED", 401));
    await expect(transport.request({ method: "GET", path: "/users/me" })).rejects.toBeInstanceOf(AccessTokenExpired);
    expect(calls).toHaveLength(1);
  });
});

describe("refreshAccessToken", () => {
  it("posts the OAuth refresh grant without x-stack headers", async () => {
    const { transport, reply, calls } = setup();
    reply(jsonResponse({ access_token: "new", token_type: "Bearer", expires_in: 3599, scope: "legacy" }));
    expect(await transport.refreshAccessToken("rt/1")).toBe("new");
    const [call] = calls;
    expect(call!.url).toBe(`${BASE_URL}/api/v1/auth/oauth/token`);
    expect(call!.method).toBe("POST");
    expect(call!.headers["content-type"]).toBe("application/x-www-form-urlencoded");
    expect(Object.keys(call!.headers).filter((h) => h.startsWith("x-stack"))).toEqual([]);
    expect(Object.fromEntries(new URLSearchParams(call!.body))).toEqual({
      grant_type: "refresh_token",
      refresh_token: "rt/1",
      client_id: PROJECT_ID,
      client_secret: PCK,
    });
    expect(call!.init.credentials).toBe("omit");
  });

  it("returns null for a refresh-token error (real 401 status, no override)", async () => {
    const { transport, reply } = setup();
    reply(knownErrorResponse("REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED", 401, "gone", undefined, { override: false }));
    expect(await transport.refreshAccessToken("rt")).toBeNull();
  });

  it("throws on 5xx and on other known errors", async () => {
    const { transport, reply } = setup();
    reply(new Response("down", { status: 503 }));
    await expect(transport.refreshAccessToken("rt")).rejects.toBeInstanceOf(HttpStatusError);
    reply(knownErrorResponse("INVALID_OAUTH_CLIENT_ID_OR_SECRET", 400, "bad", undefined, { override: false }));
    await expect(transport.refreshAccessToken("rt")).rejects.toThrow("bad");
  });

  it("retries network failures (refreshing does not rotate the token)", async () => {
    const { transport, reply, calls } = setup();
    reply(networkFailure(), jsonResponse({ access_token: "new" }));
    expect(await transport.refreshAccessToken("rt")).toBe("new");
    expect(calls).toHaveLength(2);
  });
});

it("uses the browser's fetch when none is injected", async () => {
  const spy = vi.spyOn(globalThis, "fetch").mockResolvedValue(jsonResponse({ ok: 1 }));
  try {
    const transport = new Transport({ projectId: PROJECT_ID, baseUrl: BASE_URL });
    expect((await transport.request({ method: "GET", path: "/x" })).body).toEqual({ ok: 1 });
  } finally {
    spy.mockRestore();
  }
});
