import { describe, expect, it, vi } from "vitest";
import { EmailPasswordMismatch, HttpStatusError } from "../src/errors";
import { BASE_URL, clientWith, jsonResponse, knownErrorResponse, PROJECT_ID, projectWire, tokenValidFor, userWire } from "./helpers";

const setup = clientWith;

const signedIn = () => ({ initialTokens: { refreshToken: "rt", accessToken: tokenValidFor(600) } });

describe("AuthClient", () => {
  it("starts signed out without tokens, loading with them", () => {
    expect(setup().client.getUserState()).toEqual({ status: "signed-out", user: null });
    expect(setup(signedIn()).client.getUserState()).toEqual({ status: "loading", user: null });
  });

  it("signs in anonymously, stores the tokens and loads the user", async () => {
    const { client, calls, reply } = setup();
    const access = tokenValidFor(600);
    reply(jsonResponse({ access_token: access, refresh_token: "rt-new", user_id: "u" }), jsonResponse(userWire()));
    const user = await client.signInWithCredential("ada@example.com", "correct horse");
    expect(calls[0]!.url).toBe(`${BASE_URL}/api/v1/auth/password/sign-in`);
    expect(JSON.parse(calls[0]!.body!)).toEqual({ email: "ada@example.com", password: "correct horse" });
    expect(calls[0]!.headers).not.toHaveProperty("x-stack-access-token");
    expect(calls[1]!.url).toBe(`${BASE_URL}/api/v1/users/me`);
    expect(calls[1]!.headers["x-stack-access-token"]).toBe(access);
    expect(calls[1]!.headers["x-stack-refresh-token"]).toBe("rt-new");
    expect(client.session.getState()).toEqual({ refreshToken: "rt-new", accessToken: access });
    expect(user).toMatchObject({ primaryEmail: "ada@example.com", hasPassword: true, displayName: null });
    expect(user!.signedUpAt).toEqual(new Date(1738000000000));
    expect(client.getUserState()).toEqual({ status: "signed-in", user });
    expect(calls).toHaveLength(2);
  });

  it("refreshes through the OAuth grant and retries once when the service rejects the access token", async () => {
    const { client, calls, reply } = setup(signedIn());
    const fresh = tokenValidFor(600, Date.now(), "user-1") + "x";
    reply(
      knownErrorResponse("ACCESS_TOKEN_EXPIRED", 401),
      jsonResponse({ access_token: fresh, token_type: "Bearer" }),
      jsonResponse(userWire()),
    );
    expect(await client.getUser()).toMatchObject({ primaryEmail: "ada@example.com" });
    expect(calls.map((c) => `${c.method} ${c.url.replace(BASE_URL, "")}`)).toEqual([
      "GET /api/v1/users/me",
      "POST /api/v1/auth/oauth/token",
      "GET /api/v1/users/me",
    ]);
    expect(calls[2]!.headers["x-stack-access-token"]).toBe(fresh);
    expect(client.session.getState().accessToken).toBe(fresh);
  });

  it("raises the typed error of a failed sign-in and stays signed out", async () => {
    const { client, reply } = setup();
    reply(knownErrorResponse("EMAIL_PASSWORD_MISMATCH", 400, "Wrong e-mail or password."));
    await expect(client.signInWithCredential("a@b.co", "x")).rejects.toBeInstanceOf(EmailPasswordMismatch);
    expect(client.getUserState().status).toBe("signed-out");
  });

  it("signs up with an absolute verification callback URL that keeps after_auth_return_to", async () => {
    const { client, calls, reply } = setup({ handlerPath: "/auth" });
    reply(jsonResponse({ access_token: tokenValidFor(600), refresh_token: "rt", user_id: "u" }), jsonResponse(userWire()));
    await client.signUpWithCredential("ada@example.com", "password1", { afterAuthReturnTo: "/dashboard?x=1" });
    expect(calls[0]!.url).toBe(`${BASE_URL}/api/v1/auth/password/sign-up`);
    expect(JSON.parse(calls[0]!.body!)).toEqual({
      email: "ada@example.com",
      password: "password1",
      verification_callback_url: `${window.location.origin}/auth/email-verification?after_auth_return_to=%2Fdashboard%3Fx%3D1`,
    });
  });

  it("maps CANNOT_GET_OWN_USER_WITHOUT_USER to a signed-out state", async () => {
    const { client, reply } = setup(signedIn());
    reply(knownErrorResponse("CANNOT_GET_OWN_USER_WITHOUT_USER", 400));
    expect(await client.reloadUser()).toBeNull();
    expect(client.getUserState().status).toBe("signed-out");
  });

  it("keeps loading, with the error, when the user cannot be loaded", async () => {
    const { client, reply } = setup(signedIn());
    reply(new Response("boom", { status: 500 }));
    await expect(client.reloadUser()).rejects.toBeInstanceOf(HttpStatusError);
    expect(client.getUserState()).toMatchObject({ status: "loading", error: expect.any(HttpStatusError) });
  });

  it("signs out with DELETE /auth/sessions/current and {} and clears the session", async () => {
    const { client, calls, reply } = setup(signedIn());
    reply(jsonResponse({ success: true }));
    await client.signOut();
    expect(calls[0]!.method).toBe("DELETE");
    expect(calls[0]!.url).toBe(`${BASE_URL}/api/v1/auth/sessions/current`);
    expect(calls[0]!.body).toBe("{}");
    expect(calls[0]!.headers["x-stack-refresh-token"]).toBe("rt");
    expect(client.session.getState()).toEqual({ refreshToken: null, accessToken: null });
    expect(client.getUserState().status).toBe("signed-out");
  });

  it("ignores a refresh-token error on sign-out", async () => {
    const { client, reply } = setup(signedIn());
    reply(knownErrorResponse("REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED", 401));
    await client.signOut();
    expect(client.session.getState().refreshToken).toBeNull();
  });

  it("clears the session even when sign-out fails otherwise, and reports the failure", async () => {
    const { client, reply } = setup(signedIn());
    reply(new Response("bad", { status: 400 }));
    await expect(client.signOut()).rejects.toBeInstanceOf(HttpStatusError);
    expect(client.session.getState().refreshToken).toBeNull();
  });

  it("signs out without calling the service when there is no session", async () => {
    const { client, calls } = setup();
    await client.signOut();
    expect(calls).toHaveLength(0);
  });

  it("updates the user with snake_case fields and publishes the result", async () => {
    const { client, calls, reply } = setup(signedIn());
    reply(jsonResponse(userWire({ display_name: "Ada", client_metadata: { theme: "dark" } })));
    const user = await client.updateUser({ displayName: "Ada", clientMetadata: { theme: "dark" } });
    expect(calls[0]!.method).toBe("PATCH");
    expect(JSON.parse(calls[0]!.body!)).toEqual({ display_name: "Ada", client_metadata: { theme: "dark" } });
    expect(user.displayName).toBe("Ada");
    expect(client.getUserState()).toEqual({ status: "signed-in", user });
  });

  // Attack on the shown user: a change's answer that arrives after the session ended (a sign-out
  // here, or another tab's) or changed hands must not show its user as signed in.
  describe("an answer to a change made in a session that is gone", () => {
    /** A signed-in client whose next call is held until `release` answers it with `body`. */
    async function withHeldChange() {
      const { client, reply } = setup(signedIn());
      reply(jsonResponse(userWire()));
      await client.reloadUser();
      let release: ((body: unknown) => void) | undefined;
      reply(() => new Promise<Response>((answer) => (release = (body) => answer(jsonResponse(body)))));
      const held = async () => {
        await vi.waitFor(() => expect(release).toBeTypeOf("function"));
        return release!;
      };
      return { client, reply, held };
    }

    it("after a sign-out, the user stays signed out", async () => {
      const { client, held } = await withHeldChange();
      const change = client.updateUser({ displayName: "Ada" });
      const answer = await held();
      client.session.clear(); // another tab signed out: polling read the cookies
      expect(client.getUserState()).toEqual({ status: "signed-out", user: null });
      answer(userWire({ display_name: "Ada" }));
      expect((await change).displayName).toBe("Ada"); // the caller still gets the service's answer
      expect(client.getUserState()).toEqual({ status: "signed-out", user: null });
    });

    it("after another user signed in, that user is shown, never the one the change was made for", async () => {
      const { client, reply, held } = await withHeldChange();
      const change = client.selectTeam("team-a");
      const answer = await held();
      reply(jsonResponse(userWire({ id: "0b6f6a8e-0000-4000-8000-00000000000b", primary_email: "bea@example.com" })));
      client.session.setTokens({ refreshToken: "rt-bea", accessToken: tokenValidFor(600) });
      await vi.waitFor(() => expect(client.getUserState().user?.primaryEmail).toBe("bea@example.com"));
      answer(userWire({ selected_team_id: "team-a" }));
      await change;
      expect(client.getUserState()).toMatchObject({ status: "signed-in", user: { primaryEmail: "bea@example.com", selectedTeamId: null } });
    });

    it("control: in the same session the answer is shown at once", async () => {
      const { client, held } = await withHeldChange();
      const change = client.updateUser({ displayName: "Ada" });
      (await held())(userWire({ display_name: "Ada" }));
      await change;
      expect(client.getUserState()).toMatchObject({ status: "signed-in", user: { displayName: "Ada" } });
    });
  });

  it("deleting the user invalidates the session", async () => {
    const { client, calls, reply } = setup(signedIn());
    reply(jsonResponse({ success: true }));
    await client.deleteUser();
    expect(calls[0]!.method).toBe("DELETE");
    expect(calls[0]!.url).toBe(`${BASE_URL}/api/v1/users/me`);
    expect(client.session.getState().refreshToken).toBeNull();
    expect(client.getUserState().status).toBe("signed-out");
  });

  it("reads the client view of the project", async () => {
    const { client, reply } = setup();
    reply(jsonResponse(projectWire({ client_user_deletion_enabled: true, enabled_oauth_providers: [{ id: "github" }] })));
    expect(await client.getProject()).toEqual({
      id: PROJECT_ID,
      displayName: "Demo",
      config: {
        signUpEnabled: true,
        credentialEnabled: true,
        magicLinkEnabled: false,
        passkeyEnabled: false,
        clientTeamCreationEnabled: false,
        clientUserDeletionEnabled: true,
        allowUserApiKeys: false, // a 2.7 service's view has no such flags
        allowTeamApiKeys: false,
        oauthProviders: [{ id: "github" }],
      },
    });
  });

  it("builds the x-stack-auth header from a fresh access token", async () => {
    const access = tokenValidFor(600);
    const { client } = setup({ initialTokens: { refreshToken: "rt", accessToken: access } });
    expect(await client.getAuthHeaders()).toEqual({
      "x-stack-auth": JSON.stringify({ accessToken: access, refreshToken: "rt" }),
    });
    expect(await setup().client.getAuthHeaders()).toEqual({
      "x-stack-auth": JSON.stringify({ accessToken: null, refreshToken: null }),
    });
  });

  it("keeps showing the user while reloading the same session", async () => {
    const { client, reply } = setup(signedIn());
    reply(jsonResponse(userWire()));
    await client.reloadUser();
    reply(jsonResponse({ success: true }), jsonResponse(userWire({ primary_email_verified: true })));
    const verifying = client.verifyEmail("c".repeat(45));
    const seen: string[] = [];
    const unsubscribe = client.subscribe(() => seen.push(client.getUserState().status));
    await verifying;
    unsubscribe();
    expect(seen).not.toContain("loading");
    expect(client.getUserState()).toMatchObject({ status: "signed-in", user: { primaryEmailVerified: true } });
  });

  it("keeps the shown user when reloading the same session fails", async () => {
    const { client, reply } = setup(signedIn());
    reply(jsonResponse(userWire()));
    await client.reloadUser();
    reply(jsonResponse({ success: true }), new Response("down", { status: 500 }));
    await client.verifyEmail("d".repeat(45));
    expect(client.getUserState()).toMatchObject({ status: "signed-in", user: { primaryEmail: "ada@example.com" } });
  });

  it("reloads the user when the session changes under it (e.g. another tab signed out)", async () => {
    const { client, reply } = setup(signedIn());
    reply(jsonResponse(userWire()));
    await client.reloadUser();
    expect(client.getUserState().status).toBe("signed-in");
    client.session.clear();
    expect(client.getUserState().status).toBe("signed-out");
  });

  it("namespaces load their module with the first call and name a method they lack", async () => {
    const { client, reply, calls } = setup(signedIn());
    // Not a promise, printable and serialisable, though every other name is a call stand-in.
    expect(await Promise.resolve(client.teams)).toBe(client.teams);
    expect(String(client.sessions)).toBe("[object Object]");
    expect(JSON.stringify(client.apiKeys)).toBe("{}");
    expect(client.teams.list).toBe(client.teams.list);
    expect(calls).toHaveLength(0);
    // (oauth.test.ts: getConnectedAccount's `or: "redirect"` calls this.link through the stand-in.)
    reply(jsonResponse({ items: [{ id: "t1", display_name: "One" }] }));
    await client.teams.list();
    expect(calls.map((call) => call.url)).toEqual([`${BASE_URL}/api/v1/teams?user_id=me`]);
    const missing = (client.teams as unknown as Record<string, () => Promise<unknown>>).lsit;
    await expect(missing!()).rejects.toThrow(new TypeError("lsit is not a method of this API"));
  });
});
