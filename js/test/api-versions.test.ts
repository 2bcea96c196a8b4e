// The client against the real local service answering as API 2.8 (its default) and as 2.7
// (issue 27): a normal session in both, 2.8 sign-out by the access token, and 2.8's anonymous
// and restricted users hidden unless the app allows them.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AuthClient, type AuthClientOptions } from "../src/client";
import { ALLOW_ANONYMOUS_HEADER } from "../src/token-kind";
import { API_VERSIONS, startLocalService, type RunningService } from "./local-service";

const PASSWORD = "correct horse battery staple";
const email = () => `u-${Math.random().toString(36).slice(2, 10)}@example.com`;

/** A fetch that records the method, path and the allow header of every call. */
function recordingFetch() {
  const calls: { call: string; allow: string | null }[] = [];
  const fetch: typeof globalThis.fetch = (input, init) => {
    const url = new URL(String(input));
    calls.push({ call: `${init?.method ?? "GET"} ${url.pathname.replace("/api/v1", "")}`, allow: new Headers(init?.headers).get(ALLOW_ANONYMOUS_HEADER) });
    return globalThis.fetch(input, init);
  };
  return { fetch, calls, paths: () => calls.map((c) => c.call) };
}

function clientFor(service: RunningService, options: Partial<AuthClientOptions> = {}) {
  const recorded = recordingFetch();
  const client = new AuthClient({
    projectId: service.project.project_id,
    publishableClientKey: service.project.publishable_client_key,
    baseUrl: service.url,
    cookies: null,
    fetch: recorded.fetch,
    ...options,
  });
  return { client, ...recorded };
}

/** A raw client-tier call (the way the 2.8 SDK makes an anonymous user). */
async function clientCall(service: RunningService, method: string, path: string, headers: Record<string, string> = {}, body?: unknown) {
  const answer = await fetch(`${service.url}/api/v1${path}`, {
    method,
    headers: {
      "x-stack-project-id": service.project.project_id,
      "x-stack-access-type": "client",
      "x-stack-publishable-client-key": service.project.publishable_client_key,
      "content-type": "application/json",
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: answer.status, code: answer.headers.get("x-stack-known-error"), body: (await answer.json()) as Record<string, any> };
}

for (const api of API_VERSIONS) {
  describe(`a normal session against a service answering as ${api}`, () => {
    let service: RunningService;
    beforeAll(async () => {
      service = await startLocalService(api);
    }, 180_000);
    afterAll(() => service?.stop());

    it("signs up, shows the user, and signs out on the service", async () => {
      const { client, calls } = clientFor(service);
      const user = await client.signUpWithCredential(email(), PASSWORD);
      expect(user).toMatchObject({ isAnonymous: false, isRestricted: false, restrictedReason: null });
      expect(client.getUserState().status).toBe("signed-in");
      const { refreshToken } = client.session.getState();
      await client.signOut();
      expect(client.session.getState().refreshToken).toBeNull();
      expect(calls.every((c) => c.allow === null)).toBe(true);
      // The session ended on the service: its refresh token is refused.
      expect(await client.transport.refreshAccessToken(refreshToken!)).toBeNull();
    });

    it("signs out with an expired access token by refreshing it first", async () => {
      const { client, paths } = clientFor(service);
      await client.signUpWithCredential(email(), PASSWORD);
      const { refreshToken } = client.session.getState();
      expect(paths()).not.toContain("DELETE /auth/sessions/current");
      // Another tab whose clock says the access token has expired (the service's clock is untouched).
      const later = clientFor(service, { initialTokens: client.session.getState(), now: () => Date.now() + 3_600_000 });
      await later.client.signOut();
      expect(later.paths()).toEqual(["POST /auth/oauth/token", "DELETE /auth/sessions/current"]);
      expect(await client.transport.refreshAccessToken(refreshToken!)).toBeNull();
    });
  });
}

describe("anonymous and restricted users of a 2.8 service", () => {
  let service: RunningService;
  beforeAll(async () => {
    service = await startLocalService("2.8");
  }, 180_000);
  afterAll(() => service?.stop());

  /** The project setting (admin tier, API 2.8's route) that makes users with an unverified e-mail restricted. */
  async function requireEmailVerification(on: boolean) {
    const answer = await fetch(`${service.url}/api/v1/internal/projects/current`, {
      method: "PATCH",
      headers: {
        "x-stack-project-id": service.project.project_id,
        "x-stack-access-type": "admin",
        "x-stack-super-secret-admin-key": service.project.super_secret_admin_key,
        "content-type": "application/json",
      },
      body: JSON.stringify({ config: { require_email_verification: on } }),
    });
    return answer.status;
  }

  async function anonymousTokens() {
    const answer = await clientCall(service, "POST", "/auth/anonymous/sign-up", {}, {});
    expect(answer.status).toBe(200);
    return { refreshToken: answer.body.refresh_token as string, accessToken: answer.body.access_token as string };
  }

  it("an anonymous session (as the 2.8 SDK makes one) is signed out by default, without a refused call", async () => {
    const tokens = await anonymousTokens();
    const { client, paths } = clientFor(service, { initialTokens: tokens });
    expect(await client.reloadUser()).toBeNull();
    expect(client.getUserState().status).toBe("signed-out");
    expect(paths()).toEqual([]);
    expect(client.session.getState()).toEqual(tokens);
    // What such a call would get without the allow header: the reason the client does not make it.
    const refused = await clientCall(service, "GET", "/users/me", { "x-stack-access-token": tokens.accessToken });
    expect(refused.code).toBe("ANONYMOUS_AUTHENTICATION_NOT_ALLOWED");
  });

  it("with allowAnonymous the anonymous user is signed in (isAnonymous), and can sign out", async () => {
    const tokens = await anonymousTokens();
    const { client, calls } = clientFor(service, { initialTokens: tokens, allowAnonymous: true });
    const user = await client.reloadUser();
    expect(user).toMatchObject({ isAnonymous: true, isRestricted: true, restrictedReason: { type: "anonymous" }, primaryEmail: null });
    expect(calls[0]).toEqual({ call: "GET /users/me", allow: "true" });
    await client.signOut();
    expect(calls.at(-1)).toEqual({ call: "DELETE /auth/sessions/current", allow: "true" });
    expect(await client.transport.refreshAccessToken(tokens.refreshToken)).toBeNull();
  });

  it("a restricted user (e-mail not verified where the project requires it) is shown only with allowRestricted", async () => {
    expect(await requireEmailVerification(true)).toBe(200);
    try {
      const signUp = clientFor(service);
      await signUp.client.signUpWithCredential(email(), PASSWORD);
      // Signing up as a restricted user: the default client does not show it.
      expect(signUp.client.getUserState().status).toBe("signed-out");
      const tokens = signUp.client.session.getState();
      expect(tokens.refreshToken).not.toBeNull();

      const { client, calls } = clientFor(service, { initialTokens: tokens, allowRestricted: true });
      expect(await client.reloadUser()).toMatchObject({ isAnonymous: false, isRestricted: true, restrictedReason: { type: "email_not_verified" } });
      expect(calls[0]!.allow).toBe("true");
      // allowAnonymous alone does not show restricted users.
      const anonymousOnly = clientFor(service, { initialTokens: tokens, allowAnonymous: true });
      expect(await anonymousOnly.client.reloadUser()).toBeNull();
    } finally {
      await requireEmailVerification(false);
    }
  });
});
