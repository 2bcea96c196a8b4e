import { afterEach, describe, expect, it } from "vitest";
import { InvalidAuthorizationCode, MultiFactorAuthenticationRequired, OAuthProviderAccessDenied } from "../src/errors";
import {
  authorizeUrl,
  callbackCode,
  codeChallenge,
  OAuthCallbackError,
  readOuterVerifier,
  stripCodeAndState,
} from "../src/oauth-protocol";
import {
  BASE_URL,
  clearDocumentCookies,
  clientWith,
  jsonResponse,
  knownErrorResponse,
  PCK,
  PROJECT_ID,
  tokenValidFor,
  userWire,
} from "./helpers";

afterEach(() => clearDocumentCookies());

function setup() {
  const visited: string[] = [];
  const { client, ...f } = clientWith({ cookies: document, assign: (url) => void visited.push(url) });
  return { client, visited, ...f };
}

const query = (url: string) => Object.fromEntries(new URL(url).searchParams);

describe("OAuth helpers", () => {
  it("computes the S256 challenge of RFC 7636 appendix B", async () => {
    expect(await codeChallenge("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")).toBe(
      "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
    );
  });

  it("builds the authorize URL with every parameter of service-api C7", () => {
    const url = authorizeUrl({
      baseUrl: "https://api.example.com/",
      projectId: PROJECT_ID,
      publishableClientKey: PCK,
      provider: "GitHub",
      redirectUri: "http://localhost/handler/oauth-callback?after_auth_return_to=%2Fx&code=1&state=2#frag",
      state: "st",
      codeChallenge: "ch",
      errorRedirectUrl: "http://localhost/handler/error",
      afterCallbackRedirectUrl: "/after",
    });
    expect(url.split("?")[0]).toBe("https://api.example.com/api/v1/auth/oauth/authorize/github");
    expect(query(url)).toEqual({
      client_id: PROJECT_ID,
      client_secret: PCK,
      redirect_uri: "http://localhost/handler/oauth-callback?after_auth_return_to=%2Fx",
      scope: "legacy",
      state: "st",
      grant_type: "authorization_code",
      code_challenge: "ch",
      code_challenge_method: "S256",
      response_type: "code",
      type: "authenticate",
      error_redirect_url: "http://localhost/handler/error",
      after_callback_redirect_url: "/after",
    });
    const link = authorizeUrl({
      baseUrl: BASE_URL,
      projectId: PROJECT_ID,
      publishableClientKey: PCK,
      provider: "gitlab",
      redirectUri: "http://localhost/cb",
      state: "s",
      codeChallenge: "c",
      linkToken: "tok",
      providerScope: "api read_user",
    });
    expect(query(link)).toMatchObject({ type: "link", token: "tok", provider_scope: "api read_user" });
    const base = { baseUrl: BASE_URL, projectId: PROJECT_ID, publishableClientKey: PCK, redirectUri: "http://localhost/cb" };
    expect(() => authorizeUrl({ ...base, provider: "../evil", state: "s", codeChallenge: "c" })).toThrow(/provider/);
  });

  it("reads the verifier under both names the official SDKs write", () => {
    expect(readOuterVerifier("a=1; stack-oauth-outer-s1=v1", "s1")).toBe("v1");
    expect(readOuterVerifier("hexclave-oauth-outer-s2=v2; x=y", "s2")).toBe("v2");
    expect(readOuterVerifier("stack-oauth-outer-other=v", "s3")).toBeNull();
  });

  it("checks callbacks as flow 6.5 step 7 says", () => {
    const ok = new URLSearchParams({ code: "c", state: "s" });
    expect(callbackCode(ok, "s", BASE_URL)).toBe("c");
    const reason = (params: Record<string, string>, expected: string | null) => {
      try {
        callbackCode(new URLSearchParams(params), expected, BASE_URL);
      } catch (error) {
        return error instanceof OAuthCallbackError ? error.reason : error;
      }
      return "accepted";
    };
    expect(reason({ state: "s" }, "s")).toBe("missing_parameters");
    expect(reason({ code: "c", state: "s" }, "other")).toBe("state_mismatch");
    expect(reason({ code: "c", state: "s", iss: "https://evil.example" }, "s")).toBe("issuer_mismatch");
    expect(reason({ code: "c", state: "s", iss: `${BASE_URL}/` }, "s")).toBe("accepted");
    expect(reason({ code: "c", state: "s", access_token: "t" }, "s")).toBe("implicit_response");
    expect(reason({ error: "access_denied", state: "s" }, "s")).toBe("provider_error");
    expect(reason({ errorCode: "OAUTH_PROVIDER_ACCESS_DENIED", message: "m", details: "{}" }, "s")).toBeInstanceOf(
      OAuthProviderAccessDenied,
    );
  });

  it("strips code, state and the fragment", () => {
    expect(stripCodeAndState("http://a.test/cb?x=1&code=2&state=3#f")).toBe("http://a.test/cb?x=1");
  });
});

describe("signInWithOAuth and the callback", () => {
  it("keeps the verifier in stack-oauth-outer-{state} and sends the browser to the provider", async () => {
    const { client, visited } = setup();
    await client.signInWithOAuth("github", { returnTo: "/dashboard" });
    const q = query(visited[0]!);
    expect(q.redirect_uri).toBe(`${location.origin}/handler/oauth-callback?after_auth_return_to=%2Fdashboard`);
    expect(q.error_redirect_url).toBe(`${location.origin}/handler/error`);
    const verifier = readOuterVerifier(document.cookie, q.state!);
    expect(verifier).toMatch(/^[A-Za-z0-9_-]{43,128}$/);
    expect(q.code_challenge).toBe(await codeChallenge(verifier!));
    await expect(client.signInWithOAuth("github", { returnTo: "https://evil.example/" })).rejects.toThrow(/not trusted/);
  });

  it("does nothing for a callback without a kept verifier", async () => {
    const { client, calls } = setup();
    const result = await client.oauth.handleCallback(`${location.origin}/handler/oauth-callback?code=c&state=unknown`);
    expect(result).toEqual({ status: "not-for-us" });
    expect(await client.oauth.handleCallback(`${location.origin}/handler/oauth-callback`)).toEqual({ status: "not-for-us" });
    expect(calls).toHaveLength(0);
    expect(client.getUserState().status).toBe("signed-out");
  });

  it("exchanges the code once, with the verifier, and signs in", async () => {
    const { client, visited, calls, reply } = setup();
    await client.signInWithOAuth("github");
    const { state } = query(visited[0]!);
    const verifier = readOuterVerifier(document.cookie, state!);
    const callback = `${location.origin}/handler/oauth-callback?code=the-code&state=${state}`;
    reply(
      jsonResponse({ access_token: tokenValidFor(600), refresh_token: "rt", is_new_user: true, after_callback_redirect_url: null }),
      jsonResponse(userWire()),
    );
    const result = await client.oauth.handleCallback(callback);
    expect(result).toMatchObject({ status: "signed-in", isNewUser: true });
    const form = new URLSearchParams(calls[0]!.body);
    expect(calls[0]!.url).toBe(`${BASE_URL}/api/v1/auth/oauth/token`);
    expect(Object.fromEntries(form)).toEqual({
      grant_type: "authorization_code",
      code: "the-code",
      redirect_uri: `${location.origin}/handler/oauth-callback`,
      code_verifier: verifier,
      client_id: PROJECT_ID,
      client_secret: PCK,
    });
    expect(calls[0]!.headers["x-stack-project-id"]).toBeUndefined();
    expect(readOuterVerifier(document.cookie, state!)).toBeNull(); // consumed
    expect(client.getUserState().status).toBe("signed-in");
  });

  it("sends a path as after_callback_redirect_url on this origin (API 2.8 takes only absolute URLs) and gives it back as a path", async () => {
    const { client, visited, reply } = setup();
    await client.signInWithOAuth("github", { afterCallbackRedirectUrl: "/welcome?tab=1" });
    const { state, after_callback_redirect_url: sent } = query(visited[0]!);
    expect(sent).toBe(`${location.origin}/welcome?tab=1`);
    reply(
      jsonResponse({ access_token: tokenValidFor(600), refresh_token: "rt", is_new_user: false, after_callback_redirect_url: sent }),
      jsonResponse(userWire()),
    );
    const result = await client.oauth.handleCallback(`${location.origin}/handler/oauth-callback?code=c&state=${state}`);
    expect(result).toMatchObject({ status: "signed-in", afterCallbackRedirectUrl: "/welcome?tab=1" });
    // another origin's URL is given back as the service sent it (the callback page does not follow it)
    await client.signInWithOAuth("github");
    const second = query(visited[1]!).state;
    reply(
      jsonResponse({ access_token: tokenValidFor(600), refresh_token: "rt", is_new_user: false, after_callback_redirect_url: "https://evil.example/x" }),
      jsonResponse(userWire()),
    );
    const other = await client.oauth.handleCallback(`${location.origin}/handler/oauth-callback?code=c&state=${second}`);
    expect(other).toMatchObject({ afterCallbackRedirectUrl: "https://evil.example/x" });
  });

  it("surfaces MFA and bad codes", async () => {
    const { client, visited, reply } = setup();
    await client.signInWithOAuth("github");
    const { state } = query(visited[0]!);
    reply(knownErrorResponse("MULTI_FACTOR_AUTHENTICATION_REQUIRED", 400, "mfa", { attempt_code: "a".repeat(45) }));
    const mfa = client.oauth.handleCallback(`${location.origin}/handler/oauth-callback?code=c&state=${state}`);
    await expect(mfa).rejects.toBeInstanceOf(MultiFactorAuthenticationRequired);
    await client.signInWithOAuth("github");
    const second = query(visited[1]!).state;
    reply(knownErrorResponse("INVALID_AUTHORIZATION_CODE", 400));
    await expect(client.oauth.handleCallback(`${location.origin}/handler/oauth-callback?code=c&state=${second}`)).rejects.toBeInstanceOf(
      InvalidAuthorizationCode,
    );
  });

  it("links with the user's token and reads connected accounts", async () => {
    const access = tokenValidFor(600);
    const { client, visited, reply, calls } = setup();
    client.session.setTokens({ refreshToken: "rt", accessToken: access });
    reply(jsonResponse(userWire())); // the user load a new session starts
    reply(knownErrorResponse("OAUTH_CONNECTION_NOT_CONNECTED_TO_USER", 400));
    expect(await client.oauth.getConnectedAccount("GitLab", { scopes: ["api"] })).toBeNull();
    const call = calls.find((c) => c.url.includes("/connected-accounts/"))!;
    expect(call.url).toBe(`${BASE_URL}/api/v1/connected-accounts/me/gitlab/access-token`);
    expect(JSON.parse(call.body!)).toEqual({ scope: "api" });
    expect(call.headers["x-stack-access-token"]).toBe(access);
    reply(knownErrorResponse("OAUTH_CONNECTION_DOES_NOT_HAVE_REQUIRED_SCOPE", 400));
    expect(await client.oauth.getConnectedAccount("gitlab", { scopes: ["api"], or: "redirect" })).toBeNull();
    expect(query(visited[0]!)).toMatchObject({ type: "link", token: access, provider_scope: "api" });
    reply(jsonResponse({ access_token: "provider-token" }, { status: 201 }));
    expect(await client.oauth.getConnectedAccount("gitlab")).toEqual({ provider: "gitlab", accessToken: "provider-token" });
  });
});
