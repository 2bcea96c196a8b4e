// The refresh policy (authmw/refresh_policy.json, docs/architecture.md "Refresh policy"): the
// browser's session follows the table the Python session follows (tests/core/test_refresh_policy.py
// reads the same file): when it refreshes, what it retries, what signs the user out.
import { readFileSync } from "node:fs";
import { describe, expect, it, vi } from "vitest";
import {
  generateRefreshPolicy,
  readRefreshPolicy,
  REFRESH_POLICY_OUTPUT_PATH,
  SHORT_LIVED_WARNING_OUTPUT_PATH,
} from "../scripts/gen-refresh-policy.mjs";
import { createSessionStore } from "../src/store";
import { BASE_URL, fakeFetch, jsonResponse, knownErrorResponse, networkFailure, PROJECT_ID, tokenValidFor, transportOver } from "./helpers";

const policy = readRefreshPolicy();
const NOW = Date.parse("2026-01-01T00:00:00Z");

function setup() {
  const f = fakeFetch();
  const transport = transportOver(f.fetch);
  const store = createSessionStore({ projectId: PROJECT_ID, refresh: (rt) => transport.refreshAccessToken(rt), cookies: null, now: () => NOW });
  return { store, ...f };
}

describe("the refresh policy table", () => {
  it("src/refresh-policy.gen.ts is what scripts/gen-refresh-policy.mjs makes of authmw/refresh_policy.json now", () => {
    const [policy, shortLived] = generateRefreshPolicy(readRefreshPolicy());
    expect(readFileSync(REFRESH_POLICY_OUTPUT_PATH, "utf8")).toBe(policy);
    expect(readFileSync(SHORT_LIVED_WARNING_OUTPUT_PATH, "utf8")).toBe(shortLived);
  });

  it("refuses a table that cannot be followed", () => {
    expect(() => generateRefreshPolicy({ ...policy, required_validity_ms: policy.max_min_validity_ms })).toThrow(/must be below/);
    expect(() => generateRefreshPolicy({ ...policy, retry_network_failure: { ...policy.retry_network_failure, session: "yes" as never } })).toThrow(
      /retry_network_failure.session/,
    );
    expect(() => generateRefreshPolicy({ ...policy, short_lived_warning: "short" })).toThrow(/\{remaining_s\}/);
  });
});

describe("the browser's session follows it", () => {
  it("uses a token with the required validity left, and refreshes one with less", async () => {
    const { store, reply, calls } = setup();
    const enough = tokenValidFor(policy.required_validity_ms / 1000, NOW);
    store.setTokens({ refreshToken: "rt", accessToken: enough });
    expect(await store.getAccessToken()).toBe(enough);
    expect(calls).toHaveLength(0);
    const fresh = tokenValidFor(600, NOW);
    store.setTokens({ refreshToken: "rt", accessToken: tokenValidFor(policy.required_validity_ms / 1000 - 1, NOW) });
    reply(jsonResponse({ access_token: fresh }));
    expect(await store.getAccessToken()).toBe(fresh);
    expect(calls.map((c) => [c.url, new URLSearchParams(c.body).get("grant_type")])).toEqual([
      [`${BASE_URL}/api/v1${policy.endpoints.client.path}`, policy.endpoints.client.grant_type],
    ]);
    await expect(store.getAccessToken({ minValidityMs: policy.max_min_validity_ms })).rejects.toThrow(RangeError);
  });

  it("retries a network failure of the refresh as the table says, and keeps the tokens when it keeps failing", async () => {
    const { store, reply, calls } = setup();
    store.setTokens({ refreshToken: "rt", accessToken: null });
    reply(networkFailure(), jsonResponse({ access_token: tokenValidFor(600, NOW) }));
    const first = store.getAccessToken();
    if (policy.retry_network_failure.session) {
      expect(await first).toBeTruthy();
      expect(calls).toHaveLength(2);
    } else {
      await expect(first).rejects.toThrow();
      expect(calls).toHaveLength(1);
    }
    store.setTokens({ refreshToken: "rt2", accessToken: null });
    reply(networkFailure(), networkFailure(), networkFailure(), networkFailure(), networkFailure());
    await expect(store.getAccessToken()).rejects.toThrow();
    expect(store.getState()).toEqual({ refreshToken: "rt2", accessToken: null }); // not signed out
  });

  it("signs the user out on the table's refusals only; a 5xx keeps the session", async () => {
    const { store, reply } = setup();
    store.setTokens({ refreshToken: "rt", accessToken: null });
    reply(new Response("down", { status: 503 }));
    await expect(store.getAccessToken()).rejects.toThrow();
    expect(store.getState().refreshToken).toBe("rt");
    expect(policy.signs_out).toEqual(["REFRESH_TOKEN_ERROR"]);
    reply(knownErrorResponse("REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED", 401, "gone")); // of the REFRESH_TOKEN_ERROR family
    expect(await store.getAccessToken()).toBeNull();
    expect(store.getState()).toEqual({ refreshToken: null, accessToken: null });
  });

  it("warns once, in the table's words, about a token shorter-lived than wanted", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    try {
      const { store, reply } = setup();
      store.setTokens({ refreshToken: "rt" });
      const short = tokenValidFor(10, NOW);
      reply(jsonResponse({ access_token: short }), jsonResponse({ access_token: short }));
      expect(await store.getAccessToken()).toBe(short);
      expect(await store.getAccessToken()).toBe(short);
      const wanted = (policy.required_validity_ms / 1000).toFixed(1);
      // The words load with the warning (a module of their own), so it is written a moment later.
      await vi.waitFor(() => expect(warn).toHaveBeenCalled());
      expect(warn.mock.calls).toEqual([[policy.short_lived_warning.replace("{remaining_s}", "10.0").replace("{wanted_s}", wanted)]]);
    } finally {
      warn.mockRestore();
    }
  });
});
