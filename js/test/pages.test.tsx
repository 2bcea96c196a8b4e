// The e-mail flow, invitation and account-settings pages, and the cached-value hooks (jsdom).
import { act, cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { StrictMode, type ReactNode } from "react";
import { MemoryRouter, Route, Routes, useLocation } from "react-router";
import { afterEach, describe, expect, it } from "vitest";
import { OAuthCallbackError } from "../src/oauth-callback-error";
import {
  AuthHandler,
  AuthProvider,
  DEFAULT_MESSAGES,
  describeError,
  describeUntrustedError,
  signOutIntentUrl,
  useAuth,
  usePermission,
  useSelectedTeam,
  useTeamPermissions,
  useTeams,
} from "../src/index";
import { AuthProviderForTesting } from "../src/testing";
import type { AuthUrlOverrides } from "../src/urls";
import {
  BASE_URL,
  fakeFetch,
  jsonResponse,
  knownErrorResponse,
  PROJECT_ID,
  projectWire,
  testClient,
  tokenValidFor,
  userWire,
  type RecordedCall,
} from "./helpers";

afterEach(cleanup);

const CODE = "k".repeat(45);
const ORIGIN = window.location.origin;

type Answer = Response | ((call: RecordedCall) => Response);

/** A fake service answering by "METHOD /path?query" (or "METHOD /path"); the last answer of a route repeats. */
function fakeService() {
  const routes = new Map<string, Answer[]>();
  const f = fakeFetch((call) => {
    const path = call.url.replace(`${BASE_URL}/api/v1`, "");
    const key = routes.has(`${call.method} ${path}`) ? `${call.method} ${path}` : `${call.method} ${path.split("?")[0]}`;
    const answers = routes.get(key);
    if (!answers?.length) throw new Error(`unexpected ${call.method} ${path}`);
    const answer = answers.length > 1 ? answers.shift()! : answers[0]!;
    return typeof answer === "function" ? answer(call) : answer.clone();
  });
  const on = (key: string, ...answers: Answer[]) => void routes.set(key, answers);
  on("GET /projects/current", jsonResponse(projectWire()));
  const paths = () => f.calls.map((c) => `${c.method} ${c.url.replace(`${BASE_URL}/api/v1`, "")}`);
  const bodyOf = (key: string) => {
    const call = f.calls.find((c) => {
      const full = `${c.method} ${c.url.replace(`${BASE_URL}/api/v1`, "")}`;
      return full === key || full.split("?")[0] === key;
    });
    return call?.body === undefined ? undefined : JSON.parse(call.body);
  };
  return { ...f, on, paths, bodyOf };
}

function Where() {
  const location = useLocation();
  return <p data-testid="where">{`${location.pathname}${location.search}`}</p>;
}

function renderPage(
  path: string,
  options: { signedIn?: boolean; urls?: AuthUrlOverrides; strict?: boolean; cookies?: boolean; assign?: (url: string) => void } = {},
) {
  const service = fakeService();
  const client = testClient(service.fetch, {
    cookies: options.cookies ? document : null,
    assign: options.assign,
    urls: options.urls,
    initialTokens: options.signedIn ? { refreshToken: "rt", accessToken: tokenValidFor(600) } : undefined,
  });
  const tree = (
    <MemoryRouter initialEntries={[path]}>
      <AuthProvider projectId={PROJECT_ID} baseUrl={BASE_URL} client={client} redirectMethod="router">
        <Routes>
          <Route path="/handler/*" element={<AuthHandler />} />
          <Route path="*" element={<p>app page</p>} />
        </Routes>
        <Where />
      </AuthProvider>
    </MemoryRouter>
  );
  const view = () => render(options.strict ? <StrictMode>{tree}</StrictMode> : tree);
  return { service, client, view };
}

const where = () => screen.getByTestId("where").textContent;
/** The calls a page made, less the project's configuration (every card reads it for the app's name). */
const calls = (service: { paths(): string[] }) => service.paths().filter((p) => p !== "GET /projects/current");
/** The text of the messages under a field (its aria-describedby). */
const fieldMessage = (label: string) =>
  (screen.getByLabelText(label).getAttribute("aria-describedby") ?? "")
    .split(" ")
    .map((id) => document.getElementById(id)?.textContent ?? "")
    .join(" ")
    .trim();
const type = (label: string | RegExp, value: string) => fireEvent.change(screen.getByLabelText(label), { target: { value } });
const submitForm = (testId: string) => fireEvent.submit(screen.getByTestId(testId));
/** Clicks the button of a link page's question ("Sign in with this link?"), once it shows. */
const confirmLink = async (name: string) => fireEvent.click(await screen.findByRole("button", { name }));
const signInBody = (isNew: boolean) => ({ access_token: tokenValidFor(600), refresh_token: "rt-new", user_id: "u", is_new_user: isNew });

describe("forgot-password page", () => {
  it("sends the reset link to {handler}/password-reset and says to check the inbox", async () => {
    const { service, view } = renderPage("/handler/forgot-password");
    service.on("POST /auth/password/send-reset-code", jsonResponse({ success: "maybe, only if user with e-mail exists" }));
    view();
    type("E-mail", "ada@example.com");
    submitForm("forgot-password-form");
    expect((await screen.findByTestId("forgot-password-sent")).textContent).toContain("ada@example.com");
    expect(service.bodyOf("POST /auth/password/send-reset-code")).toEqual({
      email: "ada@example.com",
      callback_url: `${ORIGIN}/handler/password-reset`,
    });
    expect(screen.getByRole("link", { name: "Back to sign in" }).getAttribute("href")).toBe("/handler/sign-in");
  });

  it("is linked from the sign-in page", async () => {
    renderPage("/handler/sign-in").view();
    expect((await screen.findByTestId("forgot-password-link")).getAttribute("href")).toBe("/handler/forgot-password");
  });
});

describe("password-reset page", () => {
  it("checks the code first, then sets the new password and leads to sign-in", async () => {
    const { service, view } = renderPage(`/handler/password-reset?code=${CODE}`, { strict: true });
    service.on("POST /auth/password/reset/check-code", jsonResponse({ is_code_valid: true }));
    service.on("POST /auth/password/reset", jsonResponse({ success: true }));
    view();
    expect(screen.getByRole("status").textContent).toBe("Checking your link…");
    await screen.findByTestId("password-reset-form");
    expect(calls(service)).toEqual(["POST /auth/password/reset/check-code"]); // once, even in StrictMode

    type("New password", "new password 1");
    type("Repeat new password", "new password 2");
    submitForm("password-reset-form");
    await waitFor(() => expect(fieldMessage("Repeat new password")).toBe("The two passwords do not match."));
    await waitFor(() => expect(document.activeElement).toBe(screen.getByLabelText("Repeat new password")));
    expect(calls(service)).toHaveLength(1);

    type("Repeat new password", "new password 1");
    submitForm("password-reset-form");
    await screen.findByTestId("password-reset-done");
    expect(service.bodyOf("POST /auth/password/reset")).toEqual({ code: CODE, password: "new password 1" });
    expect(screen.getByRole("link", { name: "Sign in" }).getAttribute("href")).toBe("/handler/sign-in");
  });

  it.each([
    ["VERIFICATION_CODE_EXPIRED", 400, "This password reset link has expired."],
    ["VERIFICATION_CODE_ALREADY_USED", 409, "This password reset link has already been used."],
    ["VERIFICATION_CODE_NOT_FOUND", 404, "This password reset link is not valid."],
    ["VERIFICATION_CODE_MAX_ATTEMPTS_REACHED", 400, "This password reset link was tried too many times."],
  ])("explains %s and offers a new link", async (code, status, message) => {
    const { service, view } = renderPage(`/handler/password-reset?code=${CODE}`);
    service.on("POST /auth/password/reset/check-code", knownErrorResponse(code, status));
    view();
    expect((await screen.findByRole("alert")).textContent).toBe(message);
    expect(screen.getByTestId("request-new-link").getAttribute("href")).toBe("/handler/forgot-password");
    expect(screen.queryByTestId("password-reset-form")).toBeNull();
  });

  it("keeps the form for a too-short password", async () => {
    const { service, view } = renderPage(`/handler/password-reset?code=${CODE}`);
    service.on("POST /auth/password/reset/check-code", jsonResponse({ is_code_valid: true }));
    service.on("POST /auth/password/reset", knownErrorResponse("PASSWORD_TOO_SHORT", 400, "short", { min_length: 8 }));
    view();
    await screen.findByTestId("password-reset-form");
    type("New password", "short");
    type("Repeat new password", "short");
    submitForm("password-reset-form");
    await waitFor(() => expect(fieldMessage("New password")).toBe("The password is too short: use at least 8 characters."));
    expect(screen.getByLabelText("New password").getAttribute("aria-invalid")).toBe("true");
  });

  it("a link without a code says so, without a call", () => {
    const { service, view } = renderPage("/handler/password-reset");
    view();
    expect(screen.getByRole("alert").textContent).toContain("no code");
    expect(calls(service)).toHaveLength(0);
  });
});

describe("magic-link-callback page", () => {
  // Attack: another site sends a signed-out visitor to a magic link of the attacker's own account
  // (login CSRF), or a mail scanner opens the link: opening it must use nothing. Control: the
  // person's click signs in.
  it("asks first: the code is sent only when Sign in is clicked", async () => {
    const { service, client, view } = renderPage(`/handler/magic-link-callback?code=${CODE}`, { strict: true });
    service.on("POST /auth/otp/sign-in", jsonResponse(signInBody(false)));
    service.on("GET /users/me", jsonResponse(userWire()));
    view();
    expect((await screen.findByRole("heading", { level: 1 })).textContent).toBe("Sign in with this link?");
    expect(screen.getByTestId("confirm-link-text").textContent).toBe(DEFAULT_MESSAGES.magicLinkConfirmText);
    expect([...document.querySelectorAll(".authmw-primary")].map((element) => element.textContent)).toEqual(["Sign in"]);
    expect(calls(service)).toEqual([]);
    expect(client.session.getState().refreshToken).toBeNull();
    fireEvent.click(screen.getByRole("button", { name: "Sign in" }));
    await waitFor(() => expect(where()).toBe("/"));
    expect(calls(service)).toEqual(["POST /auth/otp/sign-in", "GET /users/me"]);
    expect(client.session.getState().refreshToken).toBe("rt-new");
  });

  it("Cancel goes home and uses nothing", async () => {
    const { service, client, view } = renderPage(`/handler/magic-link-callback?code=${CODE}`, { urls: { home: "/start" } });
    view();
    const cancel = await screen.findByRole("link", { name: "Cancel" });
    expect(cancel.getAttribute("href")).toBe("/start");
    fireEvent.click(cancel);
    await waitFor(() => expect(where()).toBe("/start"));
    expect(calls(service)).toEqual([]);
    expect(client.session.getState().refreshToken).toBeNull();
  });

  it.each([
    [true, "/welcome"],
    [false, "/dashboard"],
  ])("signs in once (is_new_user %s) and goes to %s", async (isNew, target) => {
    const { service, client, view } = renderPage(`/handler/magic-link-callback?code=${CODE}`, {
      strict: true,
      urls: { afterSignIn: "/dashboard", afterSignUp: "/welcome" },
    });
    service.on("POST /auth/otp/sign-in", jsonResponse(signInBody(isNew)));
    service.on("GET /users/me", jsonResponse(userWire()));
    view();
    await confirmLink("Sign in");
    await waitFor(() => expect(where()).toBe(target));
    expect(service.paths().filter((p) => p === "POST /auth/otp/sign-in")).toHaveLength(1);
    expect(service.bodyOf("POST /auth/otp/sign-in")).toEqual({ code: CODE });
    expect(client.session.getState().refreshToken).toBe("rt-new");
  });

  // Attack: another site sends a signed-in user to a magic link of someone else's (the attacker's
  // own account): opening it must not swap the account they are working in for that one.
  it("leaves a signed-in user's session as it is and the link unused, as the sign-in page does", async () => {
    const { service, client, view } = renderPage(`/handler/magic-link-callback?code=${CODE}&after_auth_return_to=%2Forders`, {
      signedIn: true,
      strict: true,
    });
    service.on("POST /auth/otp/sign-in", jsonResponse(signInBody(false)));
    service.on("GET /users/me", jsonResponse(userWire()));
    view();
    expect((await screen.findByTestId("already-signed-in")).textContent).toBe("You are signed in as ada@example.com.");
    expect(screen.getByRole("link", { name: "Continue" }).getAttribute("href")).toBe("/orders");
    expect(screen.getByRole("link", { name: "Sign out" })).toBeTruthy();
    expect(calls(service)).toEqual(["GET /users/me"]);
    expect(client.session.getState().refreshToken).toBe("rt");
    expect(where()).toBe(`/handler/magic-link-callback?code=${CODE}&after_auth_return_to=%2Forders`);
  });

  it("honours a relative after_auth_return_to", async () => {
    const { service, view } = renderPage(`/handler/magic-link-callback?code=${CODE}&after_auth_return_to=%2Forders`);
    service.on("POST /auth/otp/sign-in", jsonResponse(signInBody(true)));
    service.on("GET /users/me", jsonResponse(userWire()));
    view();
    await confirmLink("Sign in");
    await waitFor(() => expect(where()).toBe("/orders"));
  });

  it.each([
    ["VERIFICATION_CODE_ALREADY_USED", 409, "This sign-in link has already been used."],
    ["VERIFICATION_CODE_EXPIRED", 400, "This sign-in link has expired."],
  ])("explains %s and links to sign-in", async (code, status, message) => {
    const { service, view } = renderPage(`/handler/magic-link-callback?code=${CODE}`);
    service.on("POST /auth/otp/sign-in", knownErrorResponse(code, status));
    view();
    await confirmLink("Sign in");
    expect((await screen.findByRole("alert")).textContent).toBe(message);
    expect(screen.getByRole("link", { name: "Sign in again" }).getAttribute("href")).toBe("/handler/sign-in");
  });

  it("asks for the TOTP code when multi-factor is required; a wrong code can be retried", async () => {
    const attempt = "a".repeat(45);
    const { service, view } = renderPage(`/handler/magic-link-callback?code=${CODE}`);
    service.on(
      "POST /auth/otp/sign-in",
      knownErrorResponse("MULTI_FACTOR_AUTHENTICATION_REQUIRED", 400, "mfa", { attempt_code: attempt }),
    );
    service.on(
      "POST /auth/mfa/sign-in",
      knownErrorResponse("INVALID_TOTP_CODE", 400),
      jsonResponse(signInBody(false)),
    );
    service.on("GET /users/me", jsonResponse(userWire()));
    view();
    await confirmLink("Sign in");
    await screen.findByTestId("mfa-prompt");
    const input = screen.getByLabelText("Authentication code");
    expect(input.getAttribute("autocomplete")).toBe("one-time-code");
    expect(input.getAttribute("inputmode")).toBe("numeric");
    type("Authentication code", "000000");
    submitForm("mfa-form");
    expect((await screen.findByRole("alert")).textContent).toBe(
      DEFAULT_MESSAGES.errorInvalidTotpCode,
    );
    type("Authentication code", "123456");
    submitForm("mfa-form");
    await waitFor(() => expect(where()).toBe("/"));
    expect(service.bodyOf("POST /auth/mfa/sign-in")).toEqual({ code: attempt, type: "totp", totp: "000000" });
    expect(service.calls.filter((c) => c.url.endsWith("/auth/mfa/sign-in")).map((c) => JSON.parse(c.body!).totp)).toEqual([
      "000000",
      "123456",
    ]);
  });
});

describe("sign-in page with magic link", () => {
  it("offers the e-mail link when the project has it, then takes the 6-character code", async () => {
    const { service, view } = renderPage("/handler/sign-in?after_auth_return_to=%2Forders");
    service.on("GET /projects/current", jsonResponse(projectWire({ magic_link_enabled: true })));
    service.on("POST /auth/otp/send-sign-in-code", jsonResponse({ nonce: "n".repeat(39) }));
    service.on("POST /auth/otp/sign-in", jsonResponse(signInBody(false)));
    service.on("GET /users/me", jsonResponse(userWire()));
    view();
    fireEvent.keyDown(await screen.findByRole("tab", { name: "Password" }), { key: "ArrowRight" });
    expect(screen.getByRole("tab", { name: "E-mail link" }).getAttribute("aria-selected")).toBe("true");
    expect(document.activeElement).toBe(screen.getByRole("tab", { name: "E-mail link" }));
    expect(screen.queryByLabelText("Password")).toBeNull();
    type("E-mail", "ada@example.com");
    submitForm("magic-link-form");
    const sent = await screen.findByTestId("magic-link-sent");
    expect(within(sent).getByRole("status").textContent).toContain("Check your inbox");
    expect(service.bodyOf("POST /auth/otp/send-sign-in-code")).toEqual({
      email: "ada@example.com",
      callback_url: `${ORIGIN}/handler/magic-link-callback?after_auth_return_to=%2Forders`,
    });
    type("Code from the e-mail", "AB12CD");
    submitForm("magic-link-code-form");
    await waitFor(() => expect(where()).toBe("/orders"));
    expect(service.bodyOf("POST /auth/otp/sign-in")).toEqual({ code: `ab12cd${"n".repeat(39)}` });
  });

  it("shows the service's refusal when magic link is off on the service", async () => {
    const { service, view } = renderPage("/handler/sign-in");
    service.on("GET /projects/current", jsonResponse(projectWire({ magic_link_enabled: true })));
    service.on(
      "POST /auth/otp/send-sign-in-code",
      new Response("Magic link is not enabled for this project", {
        status: 200,
        headers: { "x-stack-actual-status": "403", "content-type": "text/plain" },
      }),
    );
    view();
    fireEvent.click(await screen.findByRole("tab", { name: "E-mail link" }));
    type("E-mail", "ada@example.com");
    submitForm("magic-link-form");
    expect((await screen.findByRole("alert")).textContent).toBe("Magic link is not enabled for this project");
  });

  it("has no tabs when the project has magic link off", async () => {
    const { service, view } = renderPage("/handler/sign-in");
    view();
    await waitFor(() => expect(service.paths()).toContain("GET /projects/current"));
    expect(screen.queryByRole("tab")).toBeNull();
  });

  it("asks for the TOTP code after a password sign-in that needs it", async () => {
    const { service, view } = renderPage("/handler/sign-in");
    service.on(
      "POST /auth/password/sign-in",
      knownErrorResponse("MULTI_FACTOR_AUTHENTICATION_REQUIRED", 400, "mfa", { attempt_code: "a".repeat(45) }),
    );
    service.on("POST /auth/mfa/sign-in", jsonResponse(signInBody(false)));
    service.on("GET /users/me", jsonResponse(userWire()));
    view();
    fireEvent.change(await screen.findByLabelText("E-mail"), { target: { value: "ada@example.com" } });
    type("Password", "pw");
    submitForm("sign-in-form");
    await screen.findByTestId("mfa-prompt");
    type("Authentication code", "123456");
    submitForm("mfa-form");
    await waitFor(() => expect(where()).toBe("/"));
  });
});

describe("team-invitation page", () => {
  it("signed out: checks the code and sends to sign-in, coming back here", async () => {
    const { service, view } = renderPage(`/handler/team-invitation?code=${CODE}`);
    service.on("POST /team-invitations/accept/check-code", jsonResponse({ is_code_valid: true }));
    view();
    const link = await screen.findByTestId("invitation-sign-in-link");
    expect(link.getAttribute("href")).toBe(
      `/handler/sign-in?after_auth_return_to=${encodeURIComponent(`/handler/team-invitation?code=${CODE}`)}`,
    );
    expect(calls(service)).toEqual(["POST /team-invitations/accept/check-code"]);
  });

  it("signed in: shows 'Join <team>?' and accepts", async () => {
    const { service, view } = renderPage(`/handler/team-invitation?code=${CODE}`, { signedIn: true, strict: true });
    service.on("GET /users/me", jsonResponse(userWire()));
    service.on("POST /team-invitations/accept/details", jsonResponse({ team_id: "t1", team_display_name: "Team One" }));
    service.on("POST /team-invitations/accept", jsonResponse({}));
    view();
    expect((await screen.findByTestId("invitation-team")).textContent).toBe("Team One");
    expect(screen.getByTestId("invitation-confirm").textContent).toContain("You have been invited to join this team:Team One");
    fireEvent.click(screen.getByTestId("invitation-accept"));
    expect((await screen.findByTestId("invitation-joined")).textContent).toBe("You joined Team One.");
    expect(service.paths().filter((p) => p.startsWith("POST /team-invitations/accept"))).toEqual([
      "POST /team-invitations/accept/details",
      "POST /team-invitations/accept",
    ]);
  });

  it.each([
    [false, "VERIFICATION_CODE_NOT_FOUND", 404, "This invitation link is not valid."],
    [true, "VERIFICATION_CODE_EXPIRED", 400, "This invitation link has expired."],
  ])("signed in %s: explains %s", async (signedIn, code, status, message) => {
    const { service, view } = renderPage(`/handler/team-invitation?code=${CODE}`, { signedIn });
    service.on("GET /users/me", jsonResponse(userWire()));
    service.on("POST /team-invitations/accept/check-code", knownErrorResponse(code, status));
    service.on("POST /team-invitations/accept/details", knownErrorResponse(code, status));
    view();
    expect((await screen.findByRole("alert")).textContent).toBe(message);
  });

  it("an already used code at accept time is explained", async () => {
    const { service, view } = renderPage(`/handler/team-invitation?code=${CODE}`, { signedIn: true });
    service.on("GET /users/me", jsonResponse(userWire()));
    service.on("POST /team-invitations/accept/details", jsonResponse({ team_id: "t1", team_display_name: "Team One" }));
    service.on("POST /team-invitations/accept", knownErrorResponse("VERIFICATION_CODE_ALREADY_USED", 409));
    view();
    fireEvent.click(await screen.findByTestId("invitation-accept"));
    expect((await screen.findByRole("alert")).textContent).toBe("This invitation link has already been used.");
  });
});

describe("email-verification page", () => {
  // A mail scanner that opens the link must not use its one-time code; the click does.
  it("asks first: the code is sent only when Verify is clicked; Cancel goes home", async () => {
    const { service, view } = renderPage(`/handler/email-verification?code=${CODE}`, { strict: true });
    service.on("POST /contact-channels/verify", jsonResponse({ success: true }));
    view();
    expect((await screen.findByRole("heading", { level: 1 })).textContent).toBe("Verify your e-mail address?");
    expect(screen.getByTestId("confirm-link-text").textContent).toBe(DEFAULT_MESSAGES.emailVerifyConfirmText);
    expect(screen.getByRole("link", { name: "Cancel" }).getAttribute("href")).toBe("/");
    expect(calls(service)).toEqual([]);
    fireEvent.click(screen.getByRole("button", { name: "Verify" }));
    await screen.findByTestId("email-verified");
    expect(calls(service)).toEqual(["POST /contact-channels/verify"]);
    expect(service.bodyOf("POST /contact-channels/verify")).toEqual({ code: CODE });
  });

  it("Cancel uses nothing", async () => {
    const { service, view } = renderPage(`/handler/email-verification?code=${CODE}`);
    view();
    fireEvent.click(await screen.findByRole("link", { name: "Cancel" }));
    await waitFor(() => expect(where()).toBe("/"));
    expect(calls(service)).toEqual([]);
  });

  it("offers to try again after a network failure (the code was not used)", async () => {
    const { service, view } = renderPage(`/handler/email-verification?code=${CODE}`);
    service.on(
      "POST /contact-channels/verify",
      () => {
        throw new TypeError("Failed to fetch");
      },
      jsonResponse({ success: true }),
    );
    view();
    await confirmLink("Verify");
    expect((await screen.findByRole("alert")).textContent).toContain("Could not reach the authentication service");
    expect(screen.getByRole("heading", { level: 1 }).textContent).toBe("Verification failed");
    // One primary button: the way on (Try again); Continue is a plain one.
    expect([...document.querySelectorAll(".authmw-primary")].map((element) => element.textContent)).toEqual(["Try again"]);
    fireEvent.click(screen.getByRole("button", { name: "Try again" }));
    await screen.findByTestId("email-verified");
  });

  it("signed in with an unverified e-mail: an unusable link offers a new e-mail", async () => {
    const { service, view } = renderPage(`/handler/email-verification?code=${CODE}`, { signedIn: true });
    service.on("GET /users/me", jsonResponse(userWire({ primary_email_verified: false })));
    service.on("POST /contact-channels/verify", knownErrorResponse("VERIFICATION_CODE_EXPIRED", 400));
    service.on("POST /contact-channels/send-verification-code", jsonResponse({ success: true }));
    view();
    await confirmLink("Verify");
    await screen.findByTestId("resend-verification");
    expect([...document.querySelectorAll(".authmw-primary")].map((element) => element.textContent)).toEqual([
      "Send a new verification e-mail",
    ]);
    fireEvent.click(await screen.findByTestId("resend-verification"));
    expect((await screen.findByRole("status")).textContent).toContain("We sent a new verification e-mail");
    expect(service.bodyOf("POST /contact-channels/send-verification-code")).toEqual({
      email: "ada@example.com",
      callback_url: `${ORIGIN}/handler/email-verification`,
    });
  });
});

describe("account-settings page", () => {
  const channel = (id: string, value: string, fields: Record<string, unknown> = {}) => ({
    user_id: "u",
    id,
    value,
    type: "email",
    used_for_auth: false,
    is_verified: false,
    is_primary: false,
    ...fields,
  });
  const team = (id: string, name: string) => ({ id, display_name: name, profile_image_url: null, client_metadata: null, client_read_only_metadata: null });

  function signedInSettings(project: Record<string, unknown> = {}, section = "") {
    const page = renderPage(`/handler/account-settings${section}`, { signedIn: true });
    const { service } = page;
    service.on("GET /projects/current", jsonResponse(projectWire(project)));
    service.on("GET /users/me", jsonResponse(userWire({ display_name: "Ada", primary_email_verified: true })));
    service.on(
      "GET /contact-channels?user_id=me",
      jsonResponse({
        items: [
          channel("c1", "ada@example.com", { is_primary: true, is_verified: true, used_for_auth: true }),
          channel("c2", "work@example.com"),
        ],
      }),
    );
    service.on("GET /teams?user_id=me", jsonResponse({ items: [team("t1", "Team One")] }));
    service.on("GET /team-permissions?team_id=t1&user_id=me&recursive=true", jsonResponse({ items: [{ id: "$invite_members", team_id: "t1", user_id: "u" }] }));
    return page;
  }

  it("signed out: asks to sign in and come back", () => {
    const { view } = renderPage("/handler/account-settings");
    view();
    expect(screen.getByRole("link", { name: "Sign in" }).getAttribute("href")).toBe(
      "/handler/sign-in?after_auth_return_to=%2Fhandler%2Faccount-settings",
    );
  });

  it("shows the profile, e-mails with their state, and sends a verification e-mail", async () => {
    const { service, view } = signedInSettings();
    service.on("POST /contact-channels/me/c2/send-verification-code", jsonResponse({ success: true }));
    view();
    // Without a section in the path, the first (the profile); its form opens from its row.
    expect(await screen.findByTestId("profile-row")).toBeTruthy();
    expect(screen.queryByTestId("profile-form")).toBeNull();
    fireEvent.click(screen.getByTestId("profile-open"));
    expect(((await screen.findByLabelText("Display name")) as HTMLInputElement).value).toBe("Ada");
    await waitFor(() => expect(document.activeElement).toBe(screen.getByLabelText("Display name")));
    fireEvent.click(screen.getByTestId("profile-cancel"));
    expect(screen.queryByTestId("profile-form")).toBeNull();
    await waitFor(() => expect(document.activeElement).toBe(screen.getByTestId("profile-open")));
    // The navigation opens another section.
    expect(screen.getByTestId("settings-nav-profile").getAttribute("aria-current")).toBe("page");
    fireEvent.click(screen.getByTestId("settings-nav-emails"));
    await waitFor(() => expect(where()).toBe("/handler/account-settings/emails"));
    expect(screen.queryByLabelText("Display name")).toBeNull();
    const rows = await screen.findAllByTestId("contact-channel");
    expect(rows.map((r) => r.getAttribute("data-value"))).toEqual(["ada@example.com", "work@example.com"]);
    expect(within(rows[0]!).getByTestId("contact-channel-verified").textContent).toBe("verified");
    fireEvent.click(within(rows[1]!).getByRole("button", { name: "Send verification e-mail" }));
    expect((await screen.findByTestId("emails-status")).textContent).toBe("We sent a verification e-mail to work@example.com.");
  });

  it("adds an e-mail and the list is fetched again", async () => {
    const { service, view } = signedInSettings({}, "/emails");
    service.on("POST /contact-channels", jsonResponse(channel("c3", "new@example.com"), { status: 201 }));
    view();
    await screen.findAllByTestId("contact-channel");
    service.on(
      "GET /contact-channels?user_id=me",
      jsonResponse({ items: [channel("c1", "ada@example.com", { is_primary: true, is_verified: true }), channel("c3", "new@example.com")] }),
    );
    fireEvent.click(screen.getByTestId("add-email-open"));
    type("E-mail", "new@example.com");
    submitForm("add-email-form");
    await waitFor(
      () =>
        expect(screen.getAllByTestId("contact-channel").map((r) => r.getAttribute("data-value"))).toEqual([
          "ada@example.com",
          "new@example.com",
        ]),
      { timeout: 2000 },
    );
    expect(service.bodyOf("POST /contact-channels")).toEqual({ user_id: "me", type: "email", value: "new@example.com", used_for_auth: false });
  });

  it("changes the password; a mismatch of the repeat is caught before any call", async () => {
    const { service, view } = signedInSettings({}, "/password");
    service.on("POST /auth/password/update", knownErrorResponse("PASSWORD_CONFIRMATION_MISMATCH", 400), jsonResponse({ success: true }));
    view();
    fireEvent.click(await screen.findByTestId("password-open"));
    await screen.findByTestId("password-form");
    const form = within(screen.getByTestId("password-form"));
    fireEvent.change(form.getByLabelText("Current password"), { target: { value: "old" } });
    fireEvent.change(form.getByLabelText("New password"), { target: { value: "new password" } });
    fireEvent.change(form.getByLabelText("Repeat new password"), { target: { value: "other" } });
    submitForm("password-form");
    await waitFor(() => expect(fieldMessage("Repeat new password")).toBe("The two passwords do not match."));
    expect(service.paths()).not.toContain("POST /auth/password/update");
    fireEvent.change(form.getByLabelText("Repeat new password"), { target: { value: "new password" } });
    submitForm("password-form");
    await waitFor(() => expect(service.paths()).toContain("POST /auth/password/update"));
    // The service's PASSWORD_CONFIRMATION_MISMATCH here means the current password is wrong.
    await waitFor(() => expect(fieldMessage("Current password")).toBe("Your current password is wrong."));
    await waitFor(() => expect(document.activeElement).toBe(form.getByLabelText("Current password")));
    submitForm("password-form");
    expect((await screen.findByTestId("password-done")).textContent).toContain("Your password has been changed");
    expect(screen.queryByTestId("password-form")).toBeNull(); // closed after the change
  });

  it("lists teams, invites when allowed, creates teams only when the project allows it", async () => {
    const { service, view } = signedInSettings({ client_team_creation_enabled: true, client_user_deletion_enabled: true }, "/teams");
    service.on("POST /team-invitations/send-code", jsonResponse({ success: true, id: "i1" }));
    service.on("POST /teams", jsonResponse(team("t2", "Team Two"), { status: 201 }));
    view();
    const row = await screen.findByTestId("team");
    expect(row.getAttribute("data-team-name")).toBe("Team One");
    fireEvent.click(await within(row).findByTestId("invite-open"));
    const invite = within(row).getByRole("group", { name: "Invite someone to Team One" });
    fireEvent.change(within(invite).getByLabelText("E-mail"), { target: { value: "bob@example.com" } });
    fireEvent.submit(within(row).getByTestId("invite-form"));
    expect((await within(row).findByTestId("invite-status")).textContent).toBe("Invitation sent to bob@example.com.");
    expect(within(row).queryByTestId("invite-form")).toBeNull(); // a success closes the form
    expect(service.bodyOf("POST /team-invitations/send-code")).toEqual({
      email: "bob@example.com",
      team_id: "t1",
      callback_url: `${ORIGIN}/handler/team-invitation`,
    });
    fireEvent.click(screen.getByTestId("create-team-open"));
    type("Team name", "Team Two");
    submitForm("create-team-form");
    await waitFor(() => expect(service.bodyOf("POST /teams")).toEqual({ display_name: "Team Two", creator_user_id: "me" }));
    fireEvent.click(screen.getByTestId("settings-nav-danger-zone"));
    expect(await screen.findByTestId("delete-account")).toBeTruthy();
  });

  it("lists pending invitations with the permissions for it, and revokes one", async () => {
    const { service, view } = signedInSettings({}, "/teams");
    service.on(
      "GET /team-permissions?team_id=t1&user_id=me&recursive=true",
      jsonResponse({ items: ["$invite_members", "$read_members", "$remove_members"].map((id) => ({ id, team_id: "t1", user_id: "u" })) }),
    );
    const pending = { id: "i1", team_id: "t1", recipient_email: "bob@example.com", expires_at_millis: 1800000000000 };
    service.on("GET /team-invitations?team_id=t1", jsonResponse({ items: [pending] }), jsonResponse({ items: [] }));
    service.on("DELETE /team-invitations/i1?team_id=t1", jsonResponse({ success: true }));
    view();
    const row = await screen.findByTestId("pending-invitation");
    expect(row.getAttribute("data-email")).toBe("bob@example.com");
    fireEvent.click(within(row).getByRole("button", { name: "Revoke the invitation of bob@example.com" }));
    await waitFor(() => expect(screen.queryByTestId("pending-invitations")).toBeNull(), { timeout: 2000 });
    expect(service.paths()).toContain("DELETE /team-invitations/i1?team_id=t1");
  });

  it("shows the members and edits my name in the team", async () => {
    const { service, view } = signedInSettings({}, "/teams");
    service.on(
      "GET /team-permissions?team_id=t1&user_id=me&recursive=true",
      jsonResponse({ items: [{ id: "$read_members", team_id: "t1", user_id: "u" }] }),
    );
    const me = userWire().id;
    service.on(
      "GET /team-member-profiles?team_id=t1",
      jsonResponse({
        items: [
          { team_id: "t1", user_id: me, display_name: "Ada", profile_image_url: null },
          { team_id: "t1", user_id: "other", display_name: null, profile_image_url: null },
        ],
      }),
    );
    service.on(`PATCH /team-member-profiles/t1/me`, jsonResponse({ team_id: "t1", user_id: me, display_name: "Countess", profile_image_url: null }));
    view();
    expect((await screen.findByTestId("team-members")).textContent).toBe("2 members: Ada (you) and (no name)");
    expect(screen.getByTestId("member-name-row").textContent).toContain("Ada"); // the row says the name it has
    fireEvent.click(screen.getByTestId("member-name-open"));
    const form = screen.getByTestId("member-name-form");
    fireEvent.change(within(form).getByLabelText("Display name"), { target: { value: "Countess" } });
    fireEvent.submit(form);
    expect((await screen.findByTestId("member-name-status")).textContent).toBe("Saved.");
    expect(screen.queryByTestId("member-name-form")).toBeNull();
    expect(service.bodyOf("PATCH /team-member-profiles/t1/me")).toEqual({ display_name: "Countess" });
  });

  it("hides team creation and account deletion when the project does not allow them", async () => {
    const { service, view } = signedInSettings({}, "/teams");
    view();
    await screen.findByTestId("team");
    await waitFor(() => expect(service.paths()).toContain("GET /projects/current"));
    expect(screen.queryByTestId("create-team-row")).toBeNull();
    expect(screen.queryByTestId("settings-nav-danger-zone")).toBeNull();
  });

  it("deletes the account after confirmation and signs out", async () => {
    const { service, client, view } = signedInSettings({ client_user_deletion_enabled: true }, "/danger-zone");
    service.on("DELETE /users/me", jsonResponse({ success: true }));
    view();
    fireEvent.click(await screen.findByTestId("delete-account"));
    fireEvent.click(screen.getByTestId("delete-account-confirm"));
    await waitFor(() => expect(where()).toBe("/"));
    expect(client.session.getState().refreshToken).toBeNull();
  });
});

describe("AuthProviderForTesting with the account pages", () => {
  it("serves account settings from memory: the primary e-mail, teams, team creation and leaving", async () => {
    render(
      <MemoryRouter initialEntries={["/handler/account-settings/emails"]}>
        <AuthProviderForTesting
          user={{ primaryEmail: "grace@example.com", displayName: "Grace" }}
          teams={[{ id: "t1", displayName: "Navy" }]}
          permissions={{ t1: ["$invite_members"] }}
          projectConfig={{ clientTeamCreationEnabled: true }}
        >
          <Routes>
            <Route path="/handler/*" element={<AuthHandler />} />
          </Routes>
        </AuthProviderForTesting>
      </MemoryRouter>,
    );
    const channel = await screen.findByTestId("contact-channel");
    expect(channel.getAttribute("data-value")).toBe("grace@example.com");
    fireEvent.click(screen.getByTestId("settings-nav-teams"));
    expect((await screen.findByTestId("team")).getAttribute("data-team-name")).toBe("Navy");
    expect(await screen.findByTestId("invite-row")).toBeTruthy();
    fireEvent.click(screen.getByTestId("create-team-open"));
    type("Team name", "Harvard");
    submitForm("create-team-form");
    await waitFor(() => expect(screen.getAllByTestId("team").map((t) => t.getAttribute("data-team-name"))).toEqual(["Navy", "Harvard"]), {
      timeout: 2000,
    });
    fireEvent.click(screen.getByRole("button", { name: "Leave Navy" }));
    await waitFor(() => expect(screen.getAllByTestId("team").map((t) => t.getAttribute("data-team-name"))).toEqual(["Harvard"]), {
      timeout: 2000,
    });
  });
});

describe("cached-value hooks", () => {
  function Teams() {
    const teams = useTeams();
    const selected = useSelectedTeam();
    const perms = useTeamPermissions("t1");
    const canInvite = usePermission("t1", "$invite_members");
    const canDelete = usePermission("t1", "$delete_team");
    const auth = useAuth();
    return (
      <div>
        <p data-testid="teams">{teams.status === "ready" ? teams.value.map((t) => t.displayName).join(",") : teams.status}</p>
        <p data-testid="selected">{selected.status === "ready" ? (selected.value?.displayName ?? "none") : selected.status}</p>
        <p data-testid="perms">{perms.status === "ready" ? perms.value.map((p) => p.id).join(",") : perms.status}</p>
        <p data-testid="can">{`${canInvite}/${canDelete}`}</p>
        <button type="button" onClick={() => void auth.teams.create({ displayName: "Two" })}>
          create
        </button>
        <button type="button" onClick={() => void auth.selectTeam("t1")}>
          select
        </button>
      </div>
    );
  }

  const wrap = (children: ReactNode) => (
    <AuthProviderForTesting
      user={{}}
      teams={[{ id: "t1", displayName: "One" }]}
      permissions={{ t1: ["$invite_members", "member"] }}
    >
      {children}
    </AuthProviderForTesting>
  );

  it("load, re-fetch after a mutation, and follow the selected team", async () => {
    render(wrap(<Teams />));
    expect(screen.getByTestId("teams").textContent).toBe("loading");
    expect(screen.getByTestId("can").textContent).toBe("null/null");
    await waitFor(() => expect(screen.getByTestId("teams").textContent).toBe("One"));
    expect(screen.getByTestId("perms").textContent).toBe("$invite_members,member");
    expect(screen.getByTestId("can").textContent).toBe("true/false");
    expect(screen.getByTestId("selected").textContent).toBe("none");
    await act(async () => fireEvent.click(screen.getByRole("button", { name: "create" })));
    await waitFor(() => expect(screen.getByTestId("teams").textContent).toBe("One,Two"), { timeout: 2000 });
    await act(async () => fireEvent.click(screen.getByRole("button", { name: "select" })));
    expect(screen.getByTestId("selected").textContent).toBe("One");
  });

  it("StrictMode's double subscription still makes one request; null args stay loading without one", async () => {
    const { service, client } = renderPage("/", { signedIn: true });
    service.on("GET /users/me", jsonResponse(userWire()));
    service.on("GET /teams?user_id=me", jsonResponse({ items: [{ id: "t1", display_name: "One" }] }));
    function Perms() {
      const perms = useTeamPermissions(null);
      return <p data-testid="null-perms">{perms.status}</p>;
    }
    render(
      <StrictMode>
        <MemoryRouter>
          <AuthProvider projectId={PROJECT_ID} baseUrl={BASE_URL} client={client} redirectMethod="router">
            <Teams />
            <Perms />
          </AuthProvider>
        </MemoryRouter>
      </StrictMode>,
    );
    await waitFor(() => expect(screen.getByTestId("teams").textContent).toBe("One"));
    expect(service.paths().filter((p) => p === "GET /teams?user_id=me")).toHaveLength(1);
    expect(screen.getByTestId("null-perms").textContent).toBe("loading");
  });

  it("signed in the real client: teams come from GET /teams?user_id=me and are forgotten on sign-out", async () => {
    const { service, client } = renderPage("/", { signedIn: true });
    service.on("GET /users/me", jsonResponse(userWire()));
    service.on("GET /teams?user_id=me", jsonResponse({ items: [{ id: "t1", display_name: "One" }] }));
    service.on("DELETE /auth/sessions/current", jsonResponse({ success: true }));
    render(
      <MemoryRouter>
        <AuthProvider projectId={PROJECT_ID} baseUrl={BASE_URL} client={client} redirectMethod="router">
          <Teams />
        </AuthProvider>
      </MemoryRouter>,
    );
    await waitFor(() => expect(screen.getByTestId("teams").textContent).toBe("One"));
    await act(() => client.signOut());
    await waitFor(() => expect(screen.getByTestId("teams").textContent).toBe(""));
  });
});

describe("OAuth: buttons, oauth-callback page, connected accounts", () => {
  const URLS = { afterSignIn: "/home", afterSignUp: "/welcome" };
  afterEach(() => {
    for (const part of document.cookie.split(";")) {
      const name = part.split("=")[0]?.trim();
      if (name) document.cookie = `${name}=; path=/; max-age=0`;
    }
    window.history.replaceState(null, "", "/");
  });

  /** Click "Continue with GitHub" on the sign-in page; the state and the callback path it asks for. */
  async function startOnSignIn(path = "/handler/sign-in") {
    const visited: string[] = [];
    const { service, view } = renderPage(path, { cookies: true, assign: (url) => void visited.push(url), urls: URLS });
    service.on("GET /projects/current", jsonResponse(projectWire({ enabled_oauth_providers: [{ id: "github" }] })));
    view();
    fireEvent.click(await screen.findByRole("button", { name: "Continue with GitHub" }));
    await waitFor(() => expect(visited).toHaveLength(1));
    cleanup();
    const query = new URL(visited[0]!).searchParams;
    return { state: query.get("state")!, callback: new URL(query.get("redirect_uri")!) };
  }

  async function callback(state: string, callbackPath: string, answer: Response, options: { strict?: boolean } = {}) {
    const path = `${callbackPath}${callbackPath.includes("?") ? "&" : "?"}code=the-code&state=${state}`;
    window.history.replaceState(null, "", path);
    const { service, view } = renderPage(path, { cookies: true, urls: URLS, strict: options.strict });
    service.on("POST /auth/oauth/token", answer);
    service.on("GET /users/me", jsonResponse(userWire()));
    view();
    return service;
  }

  it("a new user lands on after-sign-up, once, even in StrictMode; code and state leave the address bar", async () => {
    const { state, callback: cb } = await startOnSignIn();
    expect(cb.pathname).toBe("/handler/oauth-callback");
    const service = await callback(state, cb.pathname, jsonResponse({ ...signInBody(true) }), { strict: true });
    await waitFor(() => expect(where()).toBe("/welcome"));
    expect(service.paths().filter((p) => p === "POST /auth/oauth/token")).toHaveLength(1);
    expect(window.location.search).not.toContain("code=");
  });

  it("an existing user lands on after-sign-in, or on after_auth_return_to", async () => {
    const first = await startOnSignIn();
    await callback(first.state, first.callback.pathname, jsonResponse(signInBody(false)));
    await waitFor(() => expect(where()).toBe("/home"));
    cleanup();
    const second = await startOnSignIn("/handler/sign-in?after_auth_return_to=%2Fteam%3Fid%3D1");
    expect(second.callback.searchParams.get("after_auth_return_to")).toBe("/team?id=1");
    await callback(second.state, `${second.callback.pathname}${second.callback.search}`, jsonResponse(signInBody(true)));
    await waitFor(() => expect(where()).toBe("/team?id=1"));
  });

  it("asks for the TOTP code when the exchange needs it", async () => {
    const { state, callback: cb } = await startOnSignIn();
    const mfa = knownErrorResponse("MULTI_FACTOR_AUTHENTICATION_REQUIRED", 400, "mfa", { attempt_code: "a".repeat(45) });
    const service = await callback(state, cb.pathname, mfa);
    service.on("POST /auth/mfa/sign-in", jsonResponse(signInBody(false)));
    await screen.findByTestId("mfa-prompt");
    type("Authentication code", "123456");
    submitForm("mfa-form");
    await waitFor(() => expect(where()).toBe("/home"));
    expect(service.bodyOf("POST /auth/mfa/sign-in")).toEqual({ code: "a".repeat(45), type: "totp", totp: "123456" });
  });

  it("a wrong TOTP code on the callback ends the attempt with the spec's alert and a way to sign in again", async () => {
    const { state, callback: cb } = await startOnSignIn();
    const mfa = knownErrorResponse("MULTI_FACTOR_AUTHENTICATION_REQUIRED", 400, "mfa", { attempt_code: "a".repeat(45) });
    const service = await callback(state, cb.pathname, mfa);
    service.on("POST /auth/mfa/sign-in", knownErrorResponse("INVALID_TOTP_CODE", 400));
    await screen.findByTestId("mfa-prompt");
    type("Authentication code", "000000");
    submitForm("mfa-form");
    expect((await screen.findByRole("alert")).textContent).toBe(DEFAULT_MESSAGES.oauthInvalidTotpCode);
    expect(screen.getByRole("link", { name: "Sign in again" }).getAttribute("href")).toBe("/handler/sign-in");
    expect(screen.queryByRole("button", { name: "Verify" })).toBeNull();
  });

  it("does nothing for a state this browser did not start", async () => {
    const service = await callback("someone-elses-state", "/handler/oauth-callback", jsonResponse(signInBody(true)));
    await screen.findByTestId("oauth-callback-idle");
    expect(service.paths()).not.toContain("POST /auth/oauth/token");
  });

  it("account settings list linked providers and connect another", async () => {
    const visited: string[] = [];
    const access = tokenValidFor(600);
    document.cookie = `stack-refresh-${PROJECT_ID}=rt; path=/`;
    document.cookie = `stack-access=${encodeURIComponent(JSON.stringify(["rt", access]))}; path=/`;
    window.history.replaceState(null, "", "/handler/account-settings/connected-accounts"); // the link flow comes back to the page
    const { service, view } = renderPage("/handler/account-settings/connected-accounts", {
      cookies: true,
      assign: (url) => void visited.push(url),
    });
    service.on(
      "GET /projects/current",
      jsonResponse(projectWire({ enabled_oauth_providers: [{ id: "github" }, { id: "gitlab" }] })),
    );
    service.on(
      "GET /users/me",
      jsonResponse(userWire({ oauth_providers: [{ id: "github", account_id: "1", email: "ada@example.com" }] })),
    );
    service.on("GET /contact-channels?user_id=me", jsonResponse({ items: [], is_paginated: false }));
    service.on("GET /teams?user_id=me", jsonResponse({ items: [], is_paginated: false }));
    // An API 2.7 service: no provider accounts, so the user's links without switches.
    service.on("GET /oauth-providers?user_id=me", new Response("Not found", { status: 404 }));
    view();
    const section = await screen.findByTestId("connected-accounts");
    expect((await within(section).findByTestId("connected-github")).textContent).toContain("GitHub");
    expect(within(section).queryByRole("switch")).toBeNull();
    expect(within(section).queryByRole("button", { name: "Connect GitHub" })).toBeNull();
    fireEvent.click(within(section).getByRole("button", { name: "Connect GitLab" }));
    await waitFor(() => expect(visited).toHaveLength(1));
    const query = new URL(visited[0]!).searchParams;
    expect(new URL(visited[0]!).pathname).toBe("/api/v1/auth/oauth/authorize/gitlab");
    expect(query.get("type")).toBe("link");
    expect(query.get("token")).toBe(access);
    expect(new URL(query.get("redirect_uri")!).searchParams.get("after_auth_return_to")).toBe("/handler/account-settings/connected-accounts");
  });
});

describe("issue 26: the sign-out page cannot be triggered from another site", () => {
  afterEach(() => window.sessionStorage.clear());

  it("reached without the app's one-time value (another site's link), it asks and stays signed in", async () => {
    const { service, client, view } = renderPage("/handler/sign-out", { signedIn: true });
    service.on("GET /users/me", jsonResponse(userWire()));
    service.on("DELETE /auth/sessions/current", jsonResponse({ success: true }));
    view();
    expect(await screen.findByRole("heading", { name: "Sign out?" })).toBeTruthy();
    expect(await screen.findByText("ada@example.com")).toBeTruthy();
    expect(calls(service)).not.toContain("DELETE /auth/sessions/current");
    expect(client.session.getState().refreshToken).toBe("rt");
    expect(where()).toBe("/handler/sign-out");
    // The click is the legitimate way: then it signs out and leaves.
    fireEvent.click(screen.getByTestId("sign-out-confirm"));
    await waitFor(() => expect(where()).toBe("/"));
    expect(calls(service)).toContain("DELETE /auth/sessions/current");
    expect(client.session.getState().refreshToken).toBeNull();
  });

  it("a guessed or stale value asks too; the value is used up by any arrival", async () => {
    const stale = signOutIntentUrl("/handler/sign-out");
    const { service, client, view } = renderPage("/handler/sign-out?intent=guessed", { signedIn: true });
    service.on("GET /users/me", jsonResponse(userWire()));
    view();
    expect(await screen.findByTestId("sign-out-prompt")).toBeTruthy();
    expect(window.sessionStorage.length).toBe(0);
    cleanup();
    const again = renderPage(stale, { signedIn: true });
    again.service.on("GET /users/me", jsonResponse(userWire()));
    again.view();
    expect(await screen.findByTestId("sign-out-prompt")).toBeTruthy();
    expect(calls(service)).not.toContain("DELETE /auth/sessions/current");
    expect(client.session.getState().refreshToken).toBe("rt");
  });

  it("the app's own sign-out link (SignOutLink, e.g. on the signed-in sign-in page) signs out in one step", async () => {
    const { service, client, view } = renderPage("/handler/sign-in", { signedIn: true });
    service.on("GET /projects/current", jsonResponse(projectWire()));
    service.on("GET /users/me", jsonResponse(userWire()));
    service.on("DELETE /auth/sessions/current", jsonResponse({ success: true }));
    view();
    await screen.findByTestId("already-signed-in");
    // The title says what the page shows: no "Sign in" to someone signed in.
    expect(screen.getByRole("heading", { level: 1 }).textContent).toBe("You are already signed in");
    const link = screen.getByRole("link", { name: "Sign out" });
    expect(link.getAttribute("href")).toBe("/handler/sign-out");
    fireEvent.click(link);
    await waitFor(() => expect(where()).toBe("/"));
    expect(calls(service)).toContain("DELETE /auth/sessions/current");
    expect(client.session.getState().refreshToken).toBeNull();
    expect(screen.queryByTestId("sign-out-prompt")).toBeNull();
  });

  it("nobody signed in: it goes on to the after-sign-out URL without a call", async () => {
    const { service, view } = renderPage("/handler/sign-out");
    view();
    await waitFor(() => expect(where()).toBe("/"));
    expect(calls(service)).toEqual([]);
  });
});

describe("issue 26: error and callback pages show no text from the URL", () => {
  const EVIL = "Your account is locked. Call +1-555-0100 and give us your password";
  const q = encodeURIComponent;

  it.each([
    [`errorCode=OAUTH_PROVIDER_ACCESS_DENIED&message=${q(EVIL)}`, "The sign-in was denied at the provider. Please try again."],
    [`errorCode=SCHEMA_ERROR&message=${q(EVIL)}&details=${q(JSON.stringify({ message: EVIL }))}`, "An unexpected error occurred."],
    [`errorCode=PASSWORD_TOO_SHORT&details=${q(JSON.stringify({ min_length: EVIL }))}`, "The password is too short: use at least 8 characters."],
    [`errorCode=PROJECT_NOT_FOUND&details=${q(JSON.stringify({ project_id: EVIL }))}`, DEFAULT_MESSAGES.errorSetup],
    [`errorCode=${q(EVIL)}&message=${q(EVIL)}`, "An unexpected error occurred."],
    [`message=${q(EVIL)}`, "An unexpected error occurred."],
    [`errorCode=REDIRECT_URL_NOT_WHITELISTED&message=${q(EVIL)}`, DEFAULT_MESSAGES.errorRedirectUrlNotWhitelisted],
  ])("{handler}/error?%s", async (query, shown) => {
    const { view } = renderPage(`/handler/error?${query}`);
    view();
    await waitFor(() => expect(screen.getByRole("alert").textContent).toBe(shown));
    const page = document.querySelector(".authmw-page")!.textContent;
    expect(page).not.toContain("+1-555-0100");
    expect(page).not.toMatch(/[A-Z]{3,}_[A-Z_]+/); // no raw code
  });

  it.each([
    [`error=access_denied&error_description=${q(EVIL)}`, "The sign-in was denied at the provider. Please try again."],
    [`error=${q(EVIL)}&error_description=${q(EVIL)}`, "The sign-in could not be completed. Please try again."],
    [`errorCode=OAUTH_PROVIDER_ACCESS_DENIED&message=${q(EVIL)}`, "The sign-in was denied at the provider. Please try again."],
    [`errorCode=SCHEMA_ERROR&message=${q(EVIL)}`, "The sign-in could not be completed. Please try again."],
    [`errorCode=OUTER_OAUTH_TIMEOUT&message=${q(EVIL)}`, "The sign-in took too long. Please sign in again."],
    // Attack: an attempt code of the URL's would ask for the person's TOTP code (no mfa-prompt).
    [
      `errorCode=MULTI_FACTOR_AUTHENTICATION_REQUIRED&details=${q(JSON.stringify({ attempt_code: "a".repeat(45) }))}`,
      "The sign-in could not be completed. Please try again.",
    ],
  ])("{handler}/oauth-callback?%s", async (query, shown) => {
    window.history.replaceState(null, "", `/handler/oauth-callback?${query}`);
    try {
      const { view } = renderPage(`/handler/oauth-callback?${query}`);
      view();
      expect((await screen.findByRole("alert")).textContent).toBe(shown);
      expect(document.querySelector(".authmw-page")!.textContent).not.toContain("+1-555-0100");
      expect(screen.queryByTestId("mfa-prompt")).toBeNull();
    } finally {
      window.history.replaceState(null, "", "/");
    }
  });

  it("describeUntrustedError keeps the page's own sentences and drops every text the error carries", () => {
    const error = new OAuthCallbackError("provider_error", `The sign-in was not completed: ${EVIL}.`, "temporarily_unavailable");
    expect(describeUntrustedError(error, DEFAULT_MESSAGES, "fixed")).toBe("fixed");
    expect(describeUntrustedError(new Error(EVIL), DEFAULT_MESSAGES, "fixed")).toBe("fixed");
    // The same errors on an ordinary form keep describeError's wording.
    expect(describeError(new Error(EVIL))).toBe(DEFAULT_MESSAGES.errorUnknown);
  });
});
