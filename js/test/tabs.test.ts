// Two tabs of one browser share the session cookies (jsdom's document.cookie) and a real local
// service. A tab that is behind (its cookie poll has not run: a background tab's timers are
// slowed down) may get the answer of a refresh it asked for before another tab signed out or
// in: that answer is for a session no longer in the cookies, and must neither delete the new
// one nor write the old one back.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { AuthClient } from "../src/client";
import { readSessionCookies } from "../src/cookies";
import { decodeJwtClaims } from "../src/jwt";
import { clearDocumentCookies } from "./helpers";
import { startLocalService, type RunningService } from "./local-service";

const PASSWORD = "correct horse battery staple";
const email = () => `u-${Math.random().toString(36).slice(2, 10)}@example.com`;

describe("two tabs sharing the session cookies", () => {
  let service: RunningService;
  beforeAll(async () => {
    service = await startLocalService("2.8");
  }, 180_000);
  afterAll(() => service?.stop());
  beforeEach(clearDocumentCookies);
  afterEach(clearDocumentCookies);

  /**
   * A tab: a client over document.cookie. `behind`: its clock is an hour ahead, so it refreshes
   * the access token before using it, and that first refresh waits at the door until `release`.
   */
  function tab({ behind = false } = {}) {
    const waiting: Array<() => void> = [];
    let hold = behind;
    const fetch: typeof globalThis.fetch = async (input, init) => {
      if (hold && String(input).endsWith("/auth/oauth/token")) {
        hold = false;
        await new Promise<void>((go) => waiting.push(go));
      }
      return globalThis.fetch(input, init);
    };
    const client = new AuthClient({
      projectId: service.project.project_id,
      publishableClientKey: service.project.publishable_client_key,
      baseUrl: service.url,
      fetch,
      ...(behind ? { now: () => Date.now() + 3_600_000 } : {}),
    });
    const release = async () => {
      await vi.waitFor(() => expect(waiting).toHaveLength(1));
      waiting.shift()!();
    };
    return { client, release };
  }

  const cookieSession = () => readSessionCookies(document.cookie, service.project.project_id);
  const subject = (accessToken: string | null) => (accessToken ? decodeJwtClaims(accessToken)?.sub : null);

  it("a refusal of the session another tab signed out of does not delete the session it signed in with since", async () => {
    const first = tab();
    await first.client.signUpWithCredential(email(), PASSWORD);
    const second = tab({ behind: true });
    const asked = second.client.getAccessToken(); // refreshes the first user's session, held
    await first.client.signOut(); // ends that session on the service
    const bea = await first.client.signUpWithCredential(email(), PASSWORD);
    const beaSession = first.client.session.getState().refreshToken;
    expect(cookieSession().refreshToken).toBe(beaSession);
    await second.release(); // the service refuses the ended session's refresh token
    // The tab that was behind now has the session the cookies hold, and the cookies keep it.
    expect(subject(await asked)).toBe(bea!.id);
    expect(cookieSession().refreshToken).toBe(beaSession);
    expect(second.client.session.getState().refreshToken).toBe(beaSession);
    first.client.session.syncFromCookies(); // the first tab's poll
    expect(first.client.session.getState().refreshToken).toBe(beaSession);
  });

  it("a refresh of the session another tab replaced does not bring that session back", async () => {
    const first = tab();
    const ada = await first.client.signUpWithCredential(email(), PASSWORD);
    const second = tab({ behind: true });
    const asked = second.client.getAccessToken();
    // Another user signs in in the first tab; the first user's session is still valid on the service.
    const bea = await first.client.signUpWithCredential(email(), PASSWORD);
    const beaSession = first.client.session.getState().refreshToken;
    await second.release(); // the service refreshes the first user's session
    expect(subject(await asked)).toBe(bea!.id);
    expect(bea!.id).not.toBe(ada!.id);
    expect(cookieSession().refreshToken).toBe(beaSession);
    first.client.session.syncFromCookies(); // the first tab's poll
    expect(first.client.session.getState().refreshToken).toBe(beaSession);
  });

  it("control: a tab's refresh of the cookies' session is written to them, and a refused one signs out", async () => {
    const first = tab();
    const ada = await first.client.signUpWithCredential(email(), PASSWORD);
    const adaSession = first.client.session.getState();
    const second = tab({ behind: true });
    const asked = second.client.getAccessToken();
    await second.release();
    const fresh = await asked;
    expect(subject(fresh)).toBe(ada!.id);
    expect(cookieSession()).toEqual({ refreshToken: adaSession.refreshToken, accessToken: fresh });
    // The session ends elsewhere (a client without cookies, e.g. another device's sign-out of it):
    // the cookies still hold it, so the refusal signs the tab out and clears them.
    await new AuthClient({
      projectId: service.project.project_id,
      publishableClientKey: service.project.publishable_client_key,
      baseUrl: service.url,
      cookies: null,
      initialTokens: adaSession,
    }).signOut();
    const third = tab({ behind: true });
    const refused = third.client.getAccessToken();
    await third.release();
    expect(await refused).toBeNull();
    expect(cookieSession()).toEqual({ refreshToken: null, accessToken: null });
  });
});
