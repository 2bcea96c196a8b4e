// API 2.8's three kinds of access token (issue 27): the table shared with Python, how a token's
// kind is read, and what the client does with an anonymous or restricted session.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { generateTokenKinds, readTokenKinds, TOKEN_KINDS_OUTPUT_PATH } from "../scripts/gen-token-kinds.mjs";
import type { AuthClientOptions } from "../src/client";
import { userFromWire } from "../src/models";
import { accessTokenKind, ALLOW_ANONYMOUS_HEADER, kindAllowed, LEGACY_ISSUER } from "../src/token-kind";
import { BASE_URL, clientWith, jsonResponse, knownErrorResponse, makeJwt, PROJECT_ID, userWire } from "./helpers";

const API = "https://api.stack-auth.com";
const now = () => Math.floor(Date.now() / 1000);

/** An access token as API 2.8 (or, with `legacy`, 2.7) signs it for a user of `kind`. */
function token(kind: "user" | "restricted" | "anonymous", options: { exp?: number; legacy?: boolean; project?: string } = {}) {
  const project = options.project ?? PROJECT_ID;
  const suffix = { user: "", restricted: ":restricted", anonymous: ":anon" }[kind];
  const path = { user: "projects", restricted: "projects-restricted-users", anonymous: "projects-anonymous-users" }[kind];
  return makeJwt({
    sub: "user-1",
    iat: now(),
    exp: options.exp ?? now() + 600,
    aud: options.legacy ? project : project + suffix,
    iss: options.legacy ? LEGACY_ISSUER : `${API}/api/v1/${path}/${project}`,
    ...(options.legacy ? { branchId: "main" } : { branch_id: "main", is_anonymous: kind === "anonymous", is_restricted: kind !== "user" }),
  });
}

describe("the table of token kinds", () => {
  it("src/token-kinds.gen.ts is what scripts/gen-token-kinds.mjs makes of authmw/token_kinds.json now", () => {
    expect(readFileSync(TOKEN_KINDS_OUTPUT_PATH, "utf8")).toBe(generateTokenKinds(readTokenKinds()));
  });

  it("refuses a table with a kind the package does not know, or without the project in an issuer path", () => {
    const table = readTokenKinds();
    expect(() => generateTokenKinds({ ...table, kinds: { ...table.kinds, robot: { audience_suffix: ":bot", issuer_path: "/x/{project_id}" } } })).toThrow(
      /kinds robot are unknown/,
    );
    expect(() => generateTokenKinds({ ...table, kinds: { ...table.kinds, user: { audience_suffix: "", issuer_path: "/api/v1/projects" } } })).toThrow(
      /must contain \{project_id\}/,
    );
  });
});

describe("accessTokenKind", () => {
  it.each([
    ["a 2.7 token (fixed issuer, plain audience)", token("user", { legacy: true }), "user"],
    ["a 2.8 normal user's token", token("user"), "user"],
    ["a 2.8 restricted user's token", token("restricted"), "restricted"],
    ["a 2.8 anonymous user's token", token("anonymous"), "anonymous"],
    ["a plain audience with the anonymous issuer", makeJwt({ aud: PROJECT_ID, iss: `${API}/api/v1/projects-anonymous-users/${PROJECT_ID}` }), "anonymous"],
    ["a plain audience and issuer with is_anonymous", makeJwt({ aud: PROJECT_ID, iss: `${API}/api/v1/projects/${PROJECT_ID}`, is_anonymous: true }), "anonymous"],
    ["an audience list with :anon", makeJwt({ aud: [PROJECT_ID + ":anon"] }), "anonymous"],
    ["is_restricted alone", makeJwt({ aud: PROJECT_ID, is_restricted: true }), "restricted"],
    ["another project's anonymous issuer does not count", makeJwt({ aud: PROJECT_ID, iss: `${API}/api/v1/projects-anonymous-users/other` }), "user"],
    ["a token that cannot be read (the service refuses it)", "not-a-jwt", "user"],
  ])("%s", (_, value, kind) => {
    expect(accessTokenKind(value, PROJECT_ID)).toBe(kind);
  });

  it("allows normal users always, the others only when the app opted in", () => {
    expect(kindAllowed("user")).toBe(true);
    expect(kindAllowed("anonymous")).toBe(false);
    expect(kindAllowed("restricted")).toBe(false);
    expect(kindAllowed("anonymous", { allowRestricted: true })).toBe(false);
    expect(kindAllowed("anonymous", { allowAnonymous: true })).toBe(true);
    expect(kindAllowed("restricted", { allowAnonymous: true })).toBe(false);
    expect(kindAllowed("restricted", { allowRestricted: true })).toBe(true);
  });
});

describe("the user model", () => {
  it("a 2.7 answer (no such fields) is a normal user; a 2.8 anonymous user says so", () => {
    expect(userFromWire(userWire())).toMatchObject({ isAnonymous: false, isRestricted: false, restrictedReason: null });
    const anonymous = userFromWire(
      userWire({ primary_email: null, is_anonymous: true, is_restricted: true, restricted_reason: { type: "anonymous" } }),
    );
    expect(anonymous).toMatchObject({ isAnonymous: true, isRestricted: true, restrictedReason: { type: "anonymous" } });
    const unverified = userFromWire(userWire({ is_restricted: true, restricted_reason: { type: "email_not_verified" } }));
    expect(unverified).toMatchObject({ isAnonymous: false, isRestricted: true, restrictedReason: { type: "email_not_verified" } });
  });
});

function setup(accessToken: string, options: Partial<AuthClientOptions> = {}) {
  const f = clientWith({ initialTokens: { refreshToken: "rt", accessToken }, ...options });
  const paths = () => f.calls.map((c) => `${c.method} ${c.url.replace(`${BASE_URL}/api/v1`, "")}`);
  return { ...f, paths };
}

const anonymousWire = () =>
  userWire({ primary_email: null, has_password: false, is_anonymous: true, is_restricted: true, restricted_reason: { type: "anonymous" } });
const refreshed = (access: string) => jsonResponse({ access_token: access });

describe("an anonymous session (the 2.8 SDK's, in the shared cookies)", () => {
  it("is signed out by default: no call the service would refuse, the tokens kept, no token handed out", async () => {
    const { client, calls } = setup(token("anonymous"));
    expect(await client.reloadUser()).toBeNull();
    expect(client.getUserState().status).toBe("signed-out");
    expect(calls).toHaveLength(0);
    expect(client.session.getState().refreshToken).toBe("rt");
    expect(await client.getAccessToken()).toBeNull();
    expect(JSON.parse((await client.getAuthHeaders())["x-stack-auth"])).toEqual({ accessToken: null, refreshToken: null });
  });

  it("an expired one is refreshed once, and never again per check (no refresh loop)", async () => {
    const { client, reply, paths } = setup(token("anonymous", { exp: now() - 60 }));
    reply(refreshed(token("anonymous")));
    expect(await client.reloadUser()).toBeNull();
    expect(await client.getUser()).toBeNull();
    expect(await client.getAccessToken()).toBeNull();
    expect(await client.getUser()).toBeNull();
    expect(paths()).toEqual(["POST /auth/oauth/token"]);
    expect(client.getUserState().status).toBe("signed-out");
  });

  it("signing out leaves it alone (it is not the app's session)", async () => {
    const { client, calls } = setup(token("anonymous"));
    await client.signOut();
    expect(calls).toHaveLength(0);
    expect(client.session.getState().refreshToken).toBe("rt");
  });

  it("with allowAnonymous it is a signed-in user with isAnonymous, and requests say so", async () => {
    const anonymous = token("anonymous");
    const { client, reply, calls } = setup(anonymous, { allowAnonymous: true });
    reply(jsonResponse(anonymousWire()));
    const user = await client.reloadUser();
    expect(user).toMatchObject({ isAnonymous: true, isRestricted: true, restrictedReason: { type: "anonymous" } });
    expect(client.getUserState().status).toBe("signed-in");
    expect(calls[0]!.headers["x-stack-access-token"]).toBe(anonymous);
    expect(calls[0]!.headers[ALLOW_ANONYMOUS_HEADER]).toBe("true");
    expect(await client.getAccessToken()).toBe(anonymous);
    reply(jsonResponse({ success: true }));
    await client.signOut();
    expect(calls[1]!.headers[ALLOW_ANONYMOUS_HEADER]).toBe("true");
    expect(client.session.getState().refreshToken).toBeNull();
  });

  it("a normal user's requests never carry the allow header, opted in or not", async () => {
    for (const options of [{}, { allowAnonymous: true, allowRestricted: true }]) {
      const { client, reply, calls } = setup(token("user"), options);
      reply(jsonResponse(userWire()));
      expect(await client.reloadUser()).toMatchObject({ isAnonymous: false });
      expect(Object.keys(calls[0]!.headers)).not.toContain(ALLOW_ANONYMOUS_HEADER);
    }
  });

  it("the service's refusal of the kind (ANONYMOUS_AUTHENTICATION_NOT_ALLOWED) is signed out, not an error", async () => {
    const { client, reply, paths } = setup(makeJwt({ sub: "u", exp: now() + 600 }));
    reply(knownErrorResponse("ANONYMOUS_AUTHENTICATION_NOT_ALLOWED", 401));
    expect(await client.reloadUser()).toBeNull();
    expect(paths()).toEqual(["GET /users/me"]);
    expect(client.session.getState().refreshToken).toBe("rt");
  });
});

describe("a restricted session", () => {
  it("is signed out by default, shown with allowRestricted (allowAnonymous alone does not show it)", async () => {
    const hidden = setup(token("restricted"), { allowAnonymous: true });
    expect(await hidden.client.reloadUser()).toBeNull();
    expect(hidden.calls).toHaveLength(0);

    const shown = setup(token("restricted"), { allowRestricted: true });
    shown.reply(jsonResponse(userWire({ is_restricted: true, restricted_reason: { type: "email_not_verified" } })));
    expect(await shown.client.reloadUser()).toMatchObject({ isRestricted: true, restrictedReason: { type: "email_not_verified" } });
    expect(shown.calls[0]!.headers[ALLOW_ANONYMOUS_HEADER]).toBe("true");
  });

  it("shows the user once a new access token of the same session is a normal one (e-mail verified)", async () => {
    const { client, reply } = setup(token("restricted"));
    expect(await client.reloadUser()).toBeNull();
    reply(jsonResponse(userWire({ primary_email_verified: true })));
    client.session.setTokens({ refreshToken: "rt", accessToken: token("user") });
    await expect.poll(() => client.getUserState().status).toBe("signed-in");
  });
});

describe("sign-out as API 2.8 wants it", () => {
  it("refreshes an expired access token first, then sends it (and the refresh token, for 2.7)", async () => {
    const fresh = token("user");
    const { client, reply, calls, paths } = setup(token("user", { exp: now() - 60 }));
    reply(refreshed(fresh), jsonResponse({ success: true }));
    await client.signOut();
    expect(paths()).toEqual(["POST /auth/oauth/token", "DELETE /auth/sessions/current"]);
    expect(calls[1]!.headers["x-stack-access-token"]).toBe(fresh);
    expect(calls[1]!.headers["x-stack-refresh-token"]).toBe("rt");
    expect(client.session.getState()).toEqual({ refreshToken: null, accessToken: null });
  });

  it("a session that is already gone (refresh refused) is signed out without the DELETE", async () => {
    const { client, reply, paths } = setup(token("user", { exp: now() - 60 }));
    reply(knownErrorResponse("REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED", 401));
    await client.signOut();
    expect(paths()).toEqual(["POST /auth/oauth/token"]);
    expect(client.session.getState().refreshToken).toBeNull();
  });

  it("an access token the service refuses is refreshed and the DELETE sent again", async () => {
    const fresh = token("user");
    const { client, reply, calls } = setup(token("user"));
    reply(knownErrorResponse("ACCESS_TOKEN_EXPIRED", 401), refreshed(fresh), knownErrorResponse("REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED", 401));
    await client.signOut();
    expect(calls.map((c) => c.method)).toEqual(["DELETE", "POST", "DELETE"]);
    expect(calls[2]!.headers["x-stack-access-token"]).toBe(fresh);
    expect(client.session.getState().refreshToken).toBeNull();
  });
});
