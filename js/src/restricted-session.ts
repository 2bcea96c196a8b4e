// The session of a restricted user (API 2.8: e-mail not verified where the project requires it,
// or restricted by an administrator), which an app that does not accept restricted users keeps
// aside: its user counts as signed out there. The onboarding page works with it through these
// calls, which send the session's tokens with `x-stack-allow-anonymous-user: true` whatever the
// app accepts. An anonymous session is never used here (it has no e-mail to verify).
import type { ApiContext } from "./api-context.js";
import type { AuthController, CallbackOptions } from "./controller.js";
import { AuthmwError } from "./errors.js";
import { userFromWire, type CurrentUser, type Wire } from "./models.js";
import { isKnownError } from "./known-error.js";
import { authPageUrl, callbackUrl, leave, withReturnTo, type Navigate } from "./return-to.js";
import type { TokenProvider } from "./transport.js";

/** The user of a restricted session, with what the onboarding page shows. */
export interface RestrictedUser extends CurrentUser {
  /** Restricted by an administrator (or a sign-up rule). */
  restrictedByAdmin: boolean;
  /** The administrator's reason, written to be shown to the user; null when none was given. */
  restrictedByAdminReason: string | null;
}

export interface RestrictedSessionApi {
  /**
   * The user of this session, read whatever kind of user the app accepts: restricted
   * (`isRestricted`, `restrictedReason`), or no longer restricted (e.g. the e-mail was verified
   * in another tab: the session's access token is renewed, so the app shows the user signed in).
   * Null without a session, or for an anonymous one.
   */
  getUser(): Promise<RestrictedUser | null>;
  /** Sends the verification e-mail of the user's primary address again (EmailAlreadyVerified when it is). */
  sendVerificationEmail(options?: CallbackOptions): Promise<void>;
  /**
   * Gives the user the primary e-mail address they lack (an OAuth provider shared none) or that
   * they mistyped: `email` becomes a contact channel of theirs, primary and used for signing in
   * (an address of theirs with that value is reused), and its verification e-mail is sent, whose
   * code verifyEmail takes. Then reads the user as getUser does (no longer restricted when the
   * reused address was verified). ContactChannelAlreadyUsedForAuthBySomeoneElse when another
   * account signs in with it.
   */
  addEmail(email: string, options?: CallbackOptions): Promise<RestrictedUser | null>;
  /**
   * Verifies the primary e-mail with the code of the verification e-mail (the whole link works
   * too), then reads the user as getUser does: no longer restricted once the e-mail was the
   * reason. Throws VerificationCodeError subclasses for a wrong or used code.
   */
  verifyEmail(code: string): Promise<RestrictedUser | null>;
  /**
   * Sends the browser to urls.onboarding ({handler}/onboarding), which comes back to this page
   * once the user may continue; does nothing on the handler's own pages (a restricted user
   * must still reach sign-out). <AuthProvider> calls it when such a user opens a page of an app
   * that does not accept restricted users. Through `navigate` (AuthController.navigate: what the
   * provider's redirectMethod gives) when the page is on this origin, else `location.replace`.
   */
  redirectToOnboarding(navigate?: Navigate): Promise<void>;
  /**
   * Ends the restricted user's session on the service and forgets its tokens (the app's own
   * signOut leaves a session it does not show as it is). A session that had already ended is
   * forgotten all the same.
   */
  signOut(): Promise<void>;
}

/** The `code` of a verification link, or the text itself when it is not a link. */
export function verificationCode(text: string): string {
  const trimmed = text.trim();
  try {
    return new URL(trimmed).searchParams.get("code") ?? trimmed;
  } catch {
    return trimmed;
  }
}

export function createRestrictedSessionApi(ctx: ApiContext): RestrictedSessionApi {
  // The session's tokens for a restricted or normal user, with the header that admits the former.
  const tokens: TokenProvider = {
    async getTokens() {
      const access = await ctx.session.getSessionAccess();
      return access && access.kind !== "anonymous"
        ? { accessToken: access.accessToken, refreshToken: access.refreshToken, allowAnonymousUser: access.kind === "restricted" }
        : { accessToken: null, refreshToken: null };
    },
    markAccessTokenExpired: (token) => ctx.session.markAccessTokenExpired(token),
  };

  async function getUser(): Promise<RestrictedUser | null> {
    const access = await ctx.session.getSessionAccess();
    if (!access || access.kind === "anonymous") return null;
    const { body } = await ctx.request<Wire>({ method: "GET", path: "/users/me", session: tokens });
    const user: RestrictedUser = {
      ...userFromWire(body),
      restrictedByAdmin: body.restricted_by_admin === true,
      restrictedByAdminReason: typeof body.restricted_by_admin_reason === "string" ? body.restricted_by_admin_reason : null,
    };
    if (access.kind === "restricted" && !user.isRestricted) {
      // The restriction is lifted, but the access token still says restricted: a new one
      // (the client notices the new kind and shows the user signed in).
      ctx.session.markAccessTokenExpired(access.accessToken);
      await ctx.session.getSessionAccess();
    }
    return user;
  }

  return {
    getUser,
    async addEmail(email, options) {
      // The contact channels' calls, with this session's tokens.
      const channels = (await import("./contact-channels.js")).createContactChannelsApi(ctx, tokens);
      const value = email.trim();
      const wanted = { isPrimary: true, usedForAuth: true };
      const own = (await channels.list()).find((c) => c.value.toLowerCase() == value.toLowerCase());
      const channel = !own
        ? await channels.create({ value, ...wanted })
        : own.isPrimary && own.usedForAuth
          ? own
          : await channels.update(own.id, wanted);
      if (!channel.isVerified) await channels.sendVerificationEmail(channel.id, options);
      return getUser();
    },
    async redirectToOnboarding(navigate) {
      const { pathname, search, hash } = location;
      const { onboarding, handler } = ctx.urls;
      if (pathname == onboarding || pathname.startsWith(handler.replace(/\/$/, "") + "/")) return;
      leave(withReturnTo(onboarding, pathname + search + hash), navigate);
    },
    async sendVerificationEmail(options = {}) {
      const callback_url = callbackUrl("sendVerificationEmail", ctx.urls.emailVerification, options.callbackUrl);
      const user = await getUser();
      if (!user?.primaryEmail) throw new AuthmwError("sendVerificationEmail needs a signed-in user with a primary e-mail.");
      await ctx.request({
        method: "POST",
        path: "/contact-channels/send-verification-code",
        body: { email: user.primaryEmail, callback_url },
        session: tokens,
      });
    },
    async signOut() {
      try {
        await ctx.request({ method: "DELETE", path: "/auth/sessions/current", body: {}, session: tokens });
      } catch (error) {
        if (!isKnownError(error, "REFRESH_TOKEN_ERROR")) throw error;
      }
      ctx.session.clear();
    },
    async verifyEmail(code) {
      await ctx.request({ method: "POST", path: "/contact-channels/verify", body: { code: verificationCode(code) } });
      ctx.caches.contactChannels.invalidate();
      return getUser();
    },
  };
}

/**
 * What `useUser({ or: "redirect" })` and <RedirectToSignIn> do once nobody is signed in (this
 * module loads with that first redirect, not with the first page): the sign-in page with the
 * current page as where to come back (`replace`: the protected page, which would only send the
 * visitor away again, leaves the history; through the app's navigation when the provider has one
 * and the page is on this origin, see leave), or, for a restricted user (API 2.8) the app does not
 * show, the onboarding page, where they become a user the page can have (as the 2.8 SDK's useUser
 * does).
 */
export async function leaveForSignIn(controller: AuthController): Promise<void> {
  const session = controller.restrictedSession;
  const user = await session.getUser().catch(() => null);
  if (user?.isRestricted) await session.redirectToOnboarding(controller.navigate);
  else leave(authPageUrl(controller.urls.signIn, location), controller.navigate);
}
