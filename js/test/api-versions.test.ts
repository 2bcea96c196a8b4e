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

  async function anonymousTokens() {
    const answer = await clientCall(service, "POST", "/auth/anonymous/sign-up", {}, {});
    expect(answer.status).toBe(200);
    return { refreshToken: answer.body.refresh_token as string, accessToken: answer.body.access_token as string };
  }

  /** Project settings through the admin tier (PATCH /internal/projects/current, API 2.8's route). */
  async function configure(config: Record<string, unknown>) {
    const answer = await fetch(`${service.url}/api/v1/internal/projects/current`, {
      method: "PATCH",
      headers: {
        "x-stack-project-id": service.project.project_id,
        "x-stack-access-type": "admin",
        "x-stack-super-secret-admin-key": service.project.super_secret_admin_key,
        "content-type": "application/json",
      },
      body: JSON.stringify({ config }),
    });
    expect(answer.status).toBe(200);
  }

  /** The code of the newest sign-in e-mail to `to`, from the local service's outbox (waits for it). */
  async function signInCode(to: string): Promise<string> {
    for (let tries = 0; tries < 600; tries++) {
      const answer = await fetch(`${service.url}/dev/outbox?to=${encodeURIComponent(to)}`);
      const items = ((await answer.json()) as { items: { kind: string; link: string | null }[] }).items;
      const link = items.find((item) => item.link?.includes("code="))?.link;
      if (link) return new URL(link).searchParams.get("code")!;
      await new Promise((wake) => setTimeout(wake, 100));
    }
    throw new Error(`no sign-in e-mail to ${to} in the outbox`);
  }

  describe("signUpAnonymously", () => {
    it("makes one anonymous user however many callers ask at once, and shows it with allowAnonymous", async () => {
      const { client, paths } = clientFor(service, { allowAnonymous: true });
      const users = await Promise.all([client.signUpAnonymously(), client.signUpAnonymously(), client.signUpAnonymously()]);
      expect(paths().filter((p) => p === "POST /auth/anonymous/sign-up")).toHaveLength(1);
      expect(new Set(users.map((u) => u?.id)).size).toBe(1);
      expect(users[0]).toMatchObject({ isAnonymous: true, primaryEmail: null });
      expect(client.getUserState()).toMatchObject({ status: "signed-in", user: { isAnonymous: true } });
      // A session is kept now: asking again makes no user.
      expect((await client.signUpAnonymously())?.id).toBe(users[0]!.id);
      expect(paths().filter((p) => p === "POST /auth/anonymous/sign-up")).toHaveLength(1);
    });

    it("refuses, without a call, in an app that does not show anonymous users", async () => {
      const { client, calls } = clientFor(service);
      await expect(client.signUpAnonymously()).rejects.toThrow(/allowAnonymous/);
      expect(calls).toEqual([]);
    });

    it("keeps a normal user's session as it is", async () => {
      const { client, paths } = clientFor(service, { allowAnonymous: true });
      const user = await client.signUpWithCredential(email(), PASSWORD);
      expect((await client.signUpAnonymously())?.id).toBe(user!.id);
      expect(paths()).not.toContain("POST /auth/anonymous/sign-up");
    });
  });

  describe("an anonymous user becomes a real account with the same id", () => {
    it("by signing up with a password", async () => {
      const { client, calls } = clientFor(service, { allowAnonymous: true });
      const anonymous = await client.signUpAnonymously();
      const address = email();
      const user = await client.signUpWithCredential(address, PASSWORD);
      expect(user).toMatchObject({ id: anonymous!.id, isAnonymous: false, primaryEmail: address });
      expect(calls.find((c) => c.call === "POST /auth/password/sign-up")?.allow).toBe("true");
    });

    it("by signing in with an e-mail code for a new address", async () => {
      await configure({ magic_link_enabled: true });
      const { client } = clientFor(service, { allowAnonymous: true });
      const anonymous = await client.signUpAnonymously();
      const address = email();
      await client.sendMagicLinkEmail(address, { callbackUrl: "http://localhost:5173/handler/magic-link-callback" });
      const result = await client.signInWithMagicLink(await signInCode(address));
      expect(result.user).toMatchObject({ id: anonymous!.id, isAnonymous: false, primaryEmail: address });
    });

    it("but signing into an existing account leaves the anonymous user and signs into that account", async () => {
      const existing = clientFor(service);
      const address = email();
      const owner = await existing.client.signUpWithCredential(address, PASSWORD);
      const { client } = clientFor(service, { allowAnonymous: true });
      const anonymous = await client.signUpAnonymously();
      const user = await client.signInWithCredential(address, PASSWORD);
      expect(user?.id).toBe(owner!.id);
      expect(user?.id).not.toBe(anonymous!.id);
    });

    it("in an app that does not show anonymous users too (a session the 2.8 SDK made)", async () => {
      const tokens = await anonymousTokens();
      const { client } = clientFor(service, { initialTokens: tokens });
      expect(await client.reloadUser()).toBeNull();
      const anonymousId = (await clientCall(service, "GET", "/users/me", { "x-stack-access-token": tokens.accessToken, [ALLOW_ANONYMOUS_HEADER]: "true" })).body.id;
      const user = await client.signUpWithCredential(email(), PASSWORD);
      expect(user?.id).toBe(anonymousId);
    });

    it("by OAuth: the authorize URL carries the anonymous access token (type=authenticate)", async () => {
      const assigned: string[] = [];
      const { client } = clientFor(service, { allowAnonymous: true, cookies: { cookie: "" }, assign: (url: string) => void assigned.push(url) });
      await client.signUpAnonymously();
      await client.signInWithOAuth("github");
      const query = new URL(assigned[0]!).searchParams;
      expect(query.get("type")).toBe("authenticate");
      expect(query.get("token")).toBe(client.session.getState().accessToken);
      // A normal user's token never goes along.
      const normal = clientFor(service, { cookies: { cookie: "" }, assign: (url: string) => void assigned.push(url) });
      await normal.client.signUpWithCredential(email(), PASSWORD);
      await normal.client.signInWithOAuth("github");
      expect(new URL(assigned[1]!).searchParams.get("token")).toBeNull();
    });
  });

  describe("a restricted user without an e-mail address (the onboarding page's calls)", () => {
    const CALLBACK = { callbackUrl: "http://localhost:3000/handler/email-verification" };

    /** A server-tier call (the way a back end makes a user and a session for it). */
    async function serverCall(method: string, path: string, body: unknown) {
      const answer = await fetch(`${service.url}/api/v1${path}`, {
        method,
        headers: {
          "x-stack-project-id": service.project.project_id,
          "x-stack-access-type": "server",
          "x-stack-secret-server-key": service.project.secret_server_key,
          "content-type": "application/json",
        },
        body: JSON.stringify(body),
      });
      expect(answer.status).toBeLessThan(300);
      return (await answer.json()) as Record<string, any>;
    }

    /** The session of a new user who has no e-mail (as after an OAuth sign-up whose provider shared none). */
    async function userWithoutEmail() {
      const user = await serverCall("POST", "/users", { display_name: "No Mail" });
      const session = await serverCall("POST", "/auth/sessions", { user_id: user.id, expires_in_millis: 3_600_000 });
      return { refreshToken: session.refresh_token as string, accessToken: session.access_token as string };
    }

    beforeAll(() => configure({ require_email_verification: true }));
    afterAll(() => configure({ require_email_verification: false }));

    it("adds the address, sends its verification e-mail, and once verified the app shows the user", async () => {
      const { client, calls } = clientFor(service, { initialTokens: await userWithoutEmail() });
      expect(await client.reloadUser()).toBeNull(); // restricted: the app does not show the user
      expect(await client.restrictedSession.getUser()).toMatchObject({ primaryEmail: null, restrictedReason: { type: "email_not_verified" } });

      const address = email();
      const added = await client.restrictedSession.addEmail(` ${address} `, CALLBACK);
      expect(added).toMatchObject({ primaryEmail: address, primaryEmailVerified: false, isRestricted: true });
      // The contact-channel calls went with the restricted session's tokens and the allow header.
      const created = calls.find((c) => c.call === "POST /contact-channels");
      expect(created?.allow).toBe("true");
      expect(calls.some((c) => /^POST \/contact-channels\/me\/[\w-]+\/send-verification-code$/.test(c.call))).toBe(true);

      const verified = await client.restrictedSession.verifyEmail(await signInCode(address));
      expect(verified).toMatchObject({ primaryEmail: address, primaryEmailVerified: true, isRestricted: false });
      expect(await client.reloadUser()).toMatchObject({ primaryEmail: address, isRestricted: false });
      // The address signs the user in (used for auth): another account cannot take it.
      const other = clientFor(service, { initialTokens: await userWithoutEmail() });
      await expect(other.client.restrictedSession.addEmail(address, CALLBACK)).rejects.toMatchObject({
        code: "CONTACT_CHANNEL_ALREADY_USED_FOR_AUTH_BY_SOMEONE_ELSE",
      });
    });

    it("adding the address again (a retry, another case) reuses it, and another replaces it as primary", async () => {
      const { client, paths } = clientFor(service, { initialTokens: await userWithoutEmail() });
      const address = email();
      await client.restrictedSession.addEmail(address, CALLBACK);
      const again = await client.restrictedSession.addEmail(address.toUpperCase(), CALLBACK);
      expect(again).toMatchObject({ primaryEmail: address, isRestricted: true });
      expect(paths().filter((p) => p === "POST /contact-channels")).toHaveLength(1);

      const corrected = email();
      expect(await client.restrictedSession.addEmail(corrected, CALLBACK)).toMatchObject({ primaryEmail: corrected, isRestricted: true });
      expect(await client.restrictedSession.verifyEmail(await signInCode(corrected))).toMatchObject({ primaryEmail: corrected, isRestricted: false });
    });

    it("an address of the user's that is verified already becomes primary without an e-mail, and the user may continue", async () => {
      const tokens = await userWithoutEmail();
      const { client, paths } = clientFor(service, { initialTokens: tokens });
      const { id } = (await client.restrictedSession.getUser())!;
      const address = email();
      await serverCall("POST", "/contact-channels", { user_id: id, type: "email", value: address, used_for_auth: false, is_verified: true });
      expect(await client.restrictedSession.addEmail(address, CALLBACK)).toMatchObject({ primaryEmail: address, primaryEmailVerified: true, isRestricted: false });
      expect(paths().some((p) => p.includes("send-verification-code"))).toBe(false);
      expect(await client.reloadUser()).toMatchObject({ primaryEmail: address });
    });
  });

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
    await configure({ require_email_verification: true }); // users with an unverified e-mail are restricted
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
      await configure({ require_email_verification: false });
    }
  });
});
