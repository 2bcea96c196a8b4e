// Request shapes and error handling of the e-mail flows, teams and contact-channel calls.
import { describe, expect, it, vi } from "vitest";
import { otpCode } from "../src/otp-code";
import {
  EmailAlreadyVerified,
  MultiFactorAuthenticationRequired,
  PasswordConfirmationMismatch,
  RedirectUrlNotWhitelisted,
  VerificationCodeExpired,
  VerificationCodeNotFound,
} from "../src/errors";
import { MissingCallbackUrlError, UntrustedRedirectError, callbackUrl } from "../src/return-to";
import { BASE_URL, clientWith, jsonResponse, knownErrorResponse, tokenValidFor, userWire } from "./helpers";

const CODE = "c".repeat(45);
const ORIGIN = window.location.origin;

function setup(signedIn = true) {
  const access = tokenValidFor(600);
  const { client, ...f } = clientWith({ initialTokens: signedIn ? { refreshToken: "rt", accessToken: access } : undefined });
  const shape = (i: number) => {
    const c = f.calls[i]!;
    return { method: c.method, path: c.url.replace(`${BASE_URL}/api/v1`, ""), body: c.body === undefined ? undefined : JSON.parse(c.body) };
  };
  return { client, access, shape, ...f };
}

const signInBody = (isNew: boolean) => ({ access_token: tokenValidFor(600), refresh_token: "rt-new", user_id: "u", is_new_user: isNew });

describe("magic link", () => {
  it("sends the code with the magic-link-callback URL (keeping after_auth_return_to) and returns the nonce", async () => {
    const { client, reply, shape, calls } = setup(false);
    reply(jsonResponse({ nonce: "n".repeat(39) }));
    expect(await client.sendMagicLinkEmail("ada@example.com", { afterAuthReturnTo: "/orders" })).toEqual({ nonce: "n".repeat(39) });
    expect(shape(0)).toEqual({
      method: "POST",
      path: "/auth/otp/send-sign-in-code",
      body: { email: "ada@example.com", callback_url: `${ORIGIN}/handler/magic-link-callback?after_auth_return_to=%2Forders` },
    });
    expect(calls[0]!.headers).not.toHaveProperty("x-stack-refresh-token");
  });

  it("refuses an absolute after_auth_return_to before any call", async () => {
    const { client, calls } = setup(false);
    await expect(client.sendMagicLinkEmail("a@b.co", { afterAuthReturnTo: "https://evil.example/" })).rejects.toBeInstanceOf(
      UntrustedRedirectError,
    );
    await expect(client.signUpWithCredential("a@b.co", "pw", { afterAuthReturnTo: "//evil.example/" })).rejects.toBeInstanceOf(
      UntrustedRedirectError,
    );
    expect(calls).toHaveLength(0);
  });

  it("raises RedirectUrlNotWhitelisted for an untrusted callback", async () => {
    const { client, reply } = setup(false);
    reply(knownErrorResponse("REDIRECT_URL_NOT_WHITELISTED", 400));
    await expect(client.sendMagicLinkEmail("a@b.co", { callbackUrl: "https://evil.example/cb" })).rejects.toBeInstanceOf(
      RedirectUrlNotWhitelisted,
    );
  });

  it.each([
    [true, "a new user"],
    [false, "an existing user"],
  ])("signs in with the link code and reports is_new_user (%s: %s), storing the session", async (isNew) => {
    const { client, reply, shape } = setup(false);
    reply(jsonResponse(signInBody(isNew)), jsonResponse(userWire()));
    const result = await client.signInWithMagicLink(CODE);
    expect(shape(0)).toEqual({ method: "POST", path: "/auth/otp/sign-in", body: { code: CODE } });
    expect(result.isNewUser).toBe(isNew);
    expect(result.user?.primaryEmail).toBe("ada@example.com");
    expect(client.session.getState().refreshToken).toBe("rt-new");
    expect(client.getUserState().status).toBe("signed-in");
  });

  it("a typed 6-character code is lower-cased and completed with the nonce", async () => {
    expect(otpCode(" AB12-CD ", "n".repeat(39))).toBe(`ab12cd${"n".repeat(39)}`);
    expect(() => otpCode("ABC", "n".repeat(39))).toThrow("the code must be the 6-character code");
    const { client, reply, shape } = setup(false);
    reply(jsonResponse(signInBody(false)), jsonResponse(userWire()));
    await client.signInWithMagicLink("XYZ123", "n".repeat(39));
    expect(shape(0).body).toEqual({ code: `xyz123${"n".repeat(39)}` });
  });

  it("verification and MFA errors are typed; MFA continues with the attempt code", async () => {
    const { client, reply, shape } = setup(false);
    reply(knownErrorResponse("VERIFICATION_CODE_EXPIRED", 400));
    await expect(client.signInWithMagicLink(CODE)).rejects.toBeInstanceOf(VerificationCodeExpired);
    reply(knownErrorResponse("MULTI_FACTOR_AUTHENTICATION_REQUIRED", 400, "mfa", { attempt_code: "a".repeat(45) }));
    const error = (await client.signInWithMagicLink(CODE).catch((e: unknown) => e)) as MultiFactorAuthenticationRequired;
    expect(error).toBeInstanceOf(MultiFactorAuthenticationRequired);
    expect(error.attemptCode).toBe("a".repeat(45));
    reply(jsonResponse(signInBody(true)), jsonResponse(userWire()));
    const result = await client.signInWithMfa(error.attemptCode!, "123 456");
    expect(shape(2)).toEqual({
      method: "POST",
      path: "/auth/mfa/sign-in",
      body: { code: "a".repeat(45), type: "totp", totp: "123456" },
    });
    expect(result.isNewUser).toBe(true);
  });
});

describe("passwords", () => {
  it("forgot password sends the password-reset callback", async () => {
    const { client, reply, shape } = setup(false);
    reply(jsonResponse({ success: "maybe, only if user with e-mail exists" }));
    await client.sendForgotPasswordEmail("ada@example.com");
    expect(shape(0)).toEqual({
      method: "POST",
      path: "/auth/password/send-reset-code",
      body: { email: "ada@example.com", callback_url: `${ORIGIN}/handler/password-reset` },
    });
  });

  it("checks a reset code without using it, then resets", async () => {
    const { client, reply, shape } = setup(false);
    reply(jsonResponse({ is_code_valid: true }), jsonResponse({ success: true }));
    await client.verifyPasswordResetCode(CODE);
    await client.resetPassword({ code: CODE, password: "new password" });
    expect([shape(0), shape(1)]).toEqual([
      { method: "POST", path: "/auth/password/reset/check-code", body: { code: CODE } },
      { method: "POST", path: "/auth/password/reset", body: { code: CODE, password: "new password" } },
    ]);
    reply(knownErrorResponse("VERIFICATION_CODE_NOT_FOUND", 404));
    await expect(client.verifyPasswordResetCode(CODE)).rejects.toBeInstanceOf(VerificationCodeNotFound);
  });

  it("updates the password with the session's refresh token, so this session survives", async () => {
    const { client, reply, shape, calls, access } = setup();
    reply(jsonResponse({ success: true }));
    await client.updatePassword({ oldPassword: "old", newPassword: "new password" });
    expect(shape(0)).toEqual({
      method: "POST",
      path: "/auth/password/update",
      body: { old_password: "old", new_password: "new password" },
    });
    expect(calls[0]!.headers["x-stack-refresh-token"]).toBe("rt");
    expect(calls[0]!.headers["x-stack-access-token"]).toBe(access);
    reply(knownErrorResponse("PASSWORD_CONFIRMATION_MISMATCH", 400, "Passwords do not match."));
    await expect(client.updatePassword({ oldPassword: "x", newPassword: "y".repeat(8) })).rejects.toBeInstanceOf(
      PasswordConfirmationMismatch,
    );
  });

  it("sets a password and reloads the user", async () => {
    const { client, reply, shape } = setup();
    reply(jsonResponse({ success: true }), jsonResponse(userWire({ has_password: true })));
    await client.setPassword({ password: "new password" });
    expect(shape(0)).toEqual({ method: "POST", path: "/auth/password/set", body: { password: "new password" } });
    expect(shape(1).path).toBe("/users/me");
  });
});

describe("e-mail verification and the user", () => {
  it("sends the verification e-mail of the primary address; EmailAlreadyVerified is typed", async () => {
    const { client, reply, shape } = setup();
    reply(jsonResponse(userWire({ primary_email: "ada@example.com" })));
    await client.reloadUser();
    reply(jsonResponse({ success: true }));
    await client.sendVerificationEmail();
    expect(shape(1)).toEqual({
      method: "POST",
      path: "/contact-channels/send-verification-code",
      body: { email: "ada@example.com", callback_url: `${ORIGIN}/handler/email-verification` },
    });
    reply(knownErrorResponse("EMAIL_ALREADY_VERIFIED", 409));
    await expect(client.sendVerificationEmail()).rejects.toBeInstanceOf(EmailAlreadyVerified);
  });

  it("selectTeam patches selected_team_id", async () => {
    const { client, reply, shape } = setup();
    reply(jsonResponse(userWire({ selected_team_id: "t1", selected_team: { id: "t1", display_name: "A" } })));
    const user = await client.selectTeam("t1");
    expect(shape(0)).toEqual({ method: "PATCH", path: "/users/me", body: { selected_team_id: "t1" } });
    expect(user.selectedTeam?.displayName).toBe("A");
  });

  it("deleting the user ends the session and forgets its cached values", async () => {
    const { client, reply } = setup();
    client.caches.teams.set([], [{ id: "t", displayName: "T", profileImageUrl: null, clientMetadata: null, clientReadOnlyMetadata: null }]);
    reply(jsonResponse({ success: true }));
    await client.deleteUser();
    expect(client.session.getState()).toEqual({ refreshToken: null, accessToken: null });
    expect(client.caches.teams.getSnapshot().status).toBe("loading");
    expect(client.getUserState().status).toBe("signed-out");
  });
});

describe("callback URLs", () => {
  it("uses the given absolute URL, else the page on this origin; a relative one is refused", () => {
    expect(callbackUrl("x", "/handler/p", "https://app.example/cb?a=1")).toBe("https://app.example/cb?a=1");
    expect(callbackUrl("x", "/handler/p")).toBe(`${ORIGIN}/handler/p`);
    expect(() => callbackUrl("invite", "/handler/p", "/relative")).toThrow("invite: callbackUrl must be an absolute URL");
  });

  it("without a page (no window) a callback URL is required", () => {
    const saved = globalThis.window;
    // @ts-expect-error -- simulate a server-side caller
    delete globalThis.window;
    try {
      expect(() => callbackUrl("sendForgotPasswordEmail", "/handler/password-reset")).toThrow(MissingCallbackUrlError);
      expect(() => callbackUrl("sendForgotPasswordEmail", "/handler/password-reset")).toThrow(/needs a callback URL/);
    } finally {
      globalThis.window = saved;
    }
  });
});

describe("teams", () => {
  const team = (id: string, name = id) => ({ id, display_name: name, profile_image_url: null, client_metadata: null, client_read_only_metadata: null });

  it("lists my teams (none when signed out, without a call)", async () => {
    const { client, reply, shape } = setup();
    reply(jsonResponse({ items: [team("t1", "One")], is_paginated: false }));
    expect((await client.teams.list()).map((t) => t.displayName)).toEqual(["One"]);
    expect(shape(0)).toEqual({ method: "GET", path: "/teams?user_id=me", body: undefined });
    const anonymous = setup(false);
    expect(await anonymous.client.teams.list()).toEqual([]);
    expect(anonymous.calls).toHaveLength(0);
  });

  it("create, update, delete, leave: request shapes, and the teams cache is re-fetched", async () => {
    const { client, reply, shape, calls } = setup();
    const route = (path: string) => calls.filter((c) => c.url.endsWith(path)).length;
    reply(jsonResponse({ items: [], is_paginated: false }));
    client.caches.teams.subscribe([], () => {});
    await Promise.resolve();
    reply(jsonResponse(team("t1", "New"), { status: 201 }));
    reply(jsonResponse({ items: [team("t1", "New")], is_paginated: false }));
    const created = await client.teams.create({ displayName: "New" });
    expect(created.id).toBe("t1");
    expect(shape(1)).toEqual({ method: "POST", path: "/teams", body: { display_name: "New", creator_user_id: "me" } });
    // The invalidated cache re-fetches after its throttle: wait for that request, not a stopwatch.
    await vi.waitFor(() => expect(route("/teams?user_id=me")).toBe(2), { timeout: 30_000, interval: 10 });
    expect(client.caches.teams.getSnapshot().value?.map((t) => t.id)).toEqual(["t1"]);

    client.caches.teams.invalidate = () => {}; // the rest only checks request shapes
    reply(jsonResponse(team("t1", "Renamed")), jsonResponse(userWire()));
    await client.teams.update("t1", { displayName: "Renamed" });
    expect(shape(3)).toEqual({ method: "PATCH", path: "/teams/t1", body: { display_name: "Renamed" } });
    reply(jsonResponse({ success: true }), jsonResponse(userWire()));
    await client.teams.leave("t1");
    expect(shape(5)).toMatchObject({ method: "DELETE", path: "/team-memberships/t1/me" });
    reply(jsonResponse({ success: true }), jsonResponse(userWire()));
    await client.teams.delete("t1");
    expect(shape(7)).toMatchObject({ method: "DELETE", path: "/teams/t1" });
  });

  it("member profiles and my permissions (recursive, user_id=me)", async () => {
    const { client, reply, shape } = setup();
    const profile = { team_id: "t1", user_id: "u1", display_name: "Ada", profile_image_url: null };
    reply(jsonResponse({ items: [profile] }), jsonResponse(profile), jsonResponse({ ...profile, display_name: "A" }));
    expect(await client.teamMemberProfiles.list("t1")).toEqual([{ teamId: "t1", userId: "u1", displayName: "Ada", profileImageUrl: null }]);
    await client.teamMemberProfiles.get("t1");
    await client.teamMemberProfiles.update("t1", { displayName: "A" });
    expect([shape(0), shape(1), shape(2)]).toEqual([
      { method: "GET", path: "/team-member-profiles?team_id=t1", body: undefined },
      { method: "GET", path: "/team-member-profiles/t1/me", body: undefined },
      { method: "PATCH", path: "/team-member-profiles/t1/me", body: { display_name: "A" } },
    ]);
    reply(jsonResponse({ items: [{ id: "$read_members", team_id: "t1", user_id: "u1" }, { id: "member", team_id: "t1", user_id: "u1" }] }));
    expect(await client.teamPermissions.list("t1")).toEqual([{ id: "$read_members" }, { id: "member" }]);
    expect(shape(3)).toEqual({ method: "GET", path: "/team-permissions?team_id=t1&user_id=me&recursive=true", body: undefined });
  });

  it("get returns null for a missing team, profile or contact channel; has() checks a permission", async () => {
    const { client, reply } = setup();
    reply(
      knownErrorResponse("TEAM_NOT_FOUND", 404),
      knownErrorResponse("TEAM_MEMBERSHIP_NOT_FOUND", 404),
      new Response("Contact channel not found.", { headers: { "x-stack-actual-status": "404", "content-type": "text/plain" } }),
      jsonResponse({ items: [{ id: "member", team_id: "t1", user_id: "u1" }] }),
      jsonResponse({ items: [{ id: "member", team_id: "t1", user_id: "u1" }] }),
      jsonResponse({ success: true }),
    );
    expect(await client.teams.get("t9")).toBeNull();
    expect(await client.teamMemberProfiles.get("t9", "u2")).toBeNull();
    expect(await client.contactChannels.get("c9")).toBeNull();
    expect(await client.teamPermissions.has("t1", "member")).toBe(true);
    expect(await client.teamPermissions.has("t1", "$delete_team")).toBe(false);
    await client.teams.removeMember("t1", "u2");
    reply(knownErrorResponse("TEAM_MEMBERSHIP_NOT_FOUND", 404));
    await expect(client.teams.get("t1")).rejects.toMatchObject({ code: "TEAM_MEMBERSHIP_NOT_FOUND" });
  });

  it("invitations: send with the team-invitation callback, list, revoke, check, details, accept", async () => {
    const { client, reply, shape, calls } = setup();
    reply(
      jsonResponse({ success: true, id: "i1" }),
      jsonResponse({ items: [{ id: "i1", team_id: "t1", recipient_email: "b@example.com", expires_at_millis: 1800000000000 }] }),
      jsonResponse({ success: true }),
      jsonResponse({ is_code_valid: true }),
      jsonResponse({ team_id: "t1", team_display_name: "Team One" }),
      jsonResponse({}),
    );
    expect(await client.teamInvitations.send({ teamId: "t1", email: "b@example.com" })).toEqual({ id: "i1" });
    const [invitation] = await client.teamInvitations.list("t1");
    expect(invitation).toEqual({ id: "i1", teamId: "t1", recipientEmail: "b@example.com", expiresAt: new Date(1800000000000) });
    await client.teamInvitations.revoke("t1", "i1");
    await client.teamInvitations.checkCode(CODE);
    expect(await client.teamInvitations.getDetails(CODE)).toEqual({ teamId: "t1", teamDisplayName: "Team One" });
    await client.teamInvitations.accept(CODE);
    expect([0, 1, 2, 3, 4, 5].map(shape)).toEqual([
      {
        method: "POST",
        path: "/team-invitations/send-code",
        body: { email: "b@example.com", team_id: "t1", callback_url: `${ORIGIN}/handler/team-invitation` },
      },
      { method: "GET", path: "/team-invitations?team_id=t1", body: undefined },
      { method: "DELETE", path: "/team-invitations/i1?team_id=t1", body: undefined },
      { method: "POST", path: "/team-invitations/accept/check-code", body: { code: CODE } },
      { method: "POST", path: "/team-invitations/accept/details", body: { code: CODE } },
      { method: "POST", path: "/team-invitations/accept", body: { code: CODE } },
    ]);
    expect(calls[3]!.headers).not.toHaveProperty("x-stack-refresh-token"); // check-code needs no user
    expect(calls[5]!.headers["x-stack-refresh-token"]).toBe("rt");
    reply(knownErrorResponse("VERIFICATION_CODE_ALREADY_USED", 409));
    await expect(client.teamInvitations.accept(CODE)).rejects.toMatchObject({ code: "VERIFICATION_CODE_ALREADY_USED" });
  });
});

describe("contact channels", () => {
  const channel = { user_id: "u1", id: "c1", value: "b@example.com", type: "email", used_for_auth: false, is_verified: false, is_primary: false };

  it("list, create, update, delete, send verification", async () => {
    const { client, reply, shape } = setup();
    reply(jsonResponse({ items: [channel] }));
    expect(await client.contactChannels.list()).toEqual([
      { id: "c1", value: "b@example.com", type: "email", isVerified: false, isPrimary: false, usedForAuth: false },
    ]);
    reply(jsonResponse(channel, { status: 201 }), jsonResponse(userWire()));
    await client.contactChannels.create({ value: "b@example.com", usedForAuth: false });
    reply(jsonResponse({ ...channel, is_primary: true }), jsonResponse(userWire()));
    await client.contactChannels.update("c1", { isPrimary: true });
    reply(jsonResponse({ success: true }), jsonResponse(userWire()));
    await client.contactChannels.delete("c1");
    reply(jsonResponse({ success: true }));
    await client.contactChannels.sendVerificationEmail("c1");
    expect([0, 1, 3, 5, 7].map(shape)).toEqual([
      { method: "GET", path: "/contact-channels?user_id=me", body: undefined },
      { method: "POST", path: "/contact-channels", body: { user_id: "me", type: "email", value: "b@example.com", used_for_auth: false } },
      { method: "PATCH", path: "/contact-channels/me/c1", body: { is_primary: true } },
      { method: "DELETE", path: "/contact-channels/me/c1", body: undefined },
      {
        method: "POST",
        path: "/contact-channels/me/c1/send-verification-code",
        body: { callback_url: `${ORIGIN}/handler/email-verification` },
      },
    ]);
    reply(knownErrorResponse("EMAIL_ALREADY_VERIFIED", 409));
    await expect(client.contactChannels.sendVerificationEmail("c1")).rejects.toBeInstanceOf(EmailAlreadyVerified);
  });

  it("verifying an e-mail re-fetches the subscribed contact channels", async () => {
    const { client, reply, calls } = setup(false);
    client.caches.contactChannels.set([], []);
    const stop = client.caches.contactChannels.subscribe([], () => {});
    reply(jsonResponse({ success: true }));
    await client.verifyEmail(CODE);
    // Signed out: the list is [] without a call, but it was fetched again (not left stale).
    expect(calls.map((c) => c.url.replace(BASE_URL, ""))).toEqual(["/api/v1/contact-channels/verify"]);
    stop();
  });
});
