// The sign-in and account flows of the client tier: password, e-mail link and code, TOTP,
// password reset and change, e-mail verification, passkeys. Each is a few service calls over
// the client's transport and session; AuthClient takes them as they are (see createFlows).
// They are declared and documented in controller.ts (AuthFlows), which this module implements.
import type { PublicKeyCredentialCreationOptionsJSON, PublicKeyCredentialRequestOptionsJSON } from "@simplewebauthn/browser";
import type { ApiContext } from "./api-context.js";
import type { AuthController, AuthFlows } from "./controller.js";
import { AuthmwError } from "./errors.js";
import { isKnownError } from "./known-error.js";
import { otpCode } from "./otp-code.js";
import type { CurrentUser, SignInResult } from "./models.js";
import {
  authenticationOptions,
  createCredential,
  getCredential,
  registrationOptions,
  type PasskeyChallenge,
} from "./passkeys.js";
import type { SessionAccess } from "./store.js";
import { checkTotpSetupCode, createTotpSetup } from "./totp.js";
import type { TokenProvider } from "./transport.js";
import { absoluteUrl, callbackUrl, toRelativeUrl, withReturnTo } from "./return-to.js";

/** The service's answer to every sign-in. */
interface SignInResponse {
  access_token: string;
  refresh_token: string;
  user_id: string;
  is_new_user?: boolean;
}

/** The calls of the client the flows build on. */
export type FlowClient = Pick<AuthController, "getUser" | "getUserState" | "getProject" | "updateUser">;

/** A return-to URL put on an e-mail link: relative only (UntrustedRedirectError otherwise). */
const relativeReturnTo = (url: string | null | undefined) => (url ? toRelativeUrl(url) : null);

/** The flows over `ctx` and `client`: AuthFlows, documented in controller.ts. */
export function createFlows(ctx: ApiContext, client: FlowClient): AuthFlows {
  const { session, urls } = ctx;
  /**
   * A session's own tokens for a request, whatever its kind (the session store hands out only
   * those of allowed kinds); fetched (refreshed) again only when the service refuses the access
   * token (the transport then retries once).
   */
  const ownTokens = (access: SessionAccess): TokenProvider => {
    let current: SessionAccess | null = access;
    return {
      getTokens: async () => {
        current ??= await session.getSessionAccess();
        return current
          ? { accessToken: current.accessToken, refreshToken: current.refreshToken, allowAnonymousUser: current.kind !== "user" }
          : { accessToken: null, refreshToken: null };
      },
      markAccessTokenExpired: (token) => {
        current = null;
        session.markAccessTokenExpired(token);
      },
    };
  };
  /**
   * The anonymous session of this browser, for a sign-up that upgrades it to a real account
   * keeping its id (service-api B7.3), whether or not this app shows anonymous users (the 2.8
   * SDK may have made it). None when there is no such session or it cannot be refreshed.
   */
  const anonymousSession = async (): Promise<TokenProvider | undefined> => {
    if (!session.getState().refreshToken) return undefined;
    const access = await session.getSessionAccess().catch(() => null);
    return access?.kind === "anonymous" ? ownTokens(access) : undefined;
  };
  let anonymousSignUp: Promise<CurrentUser | null> | null = null;
  const store = (body: SignInResponse) => ctx.storeSignIn({ accessToken: body.access_token, refreshToken: body.refresh_token });
  const signedIn = async (body: SignInResponse): Promise<SignInResult> => ({
    isNewUser: Boolean(body.is_new_user),
    user: await store(body),
  });
  const userAfterChange = async (): Promise<CurrentUser> => {
    // The signed-in user after a change made outside PATCH /users/me (e.g. a new passkey).
    const user = await ctx.refreshUser();
    if (!user) throw new AuthmwError("The session ended while the change was made; sign in again.");
    return user;
  };

  return {
    async signOut() {
      let hidden = false;
      try {
        const access = await session.getSessionAccess();
        hidden = access !== null && !access.allowed;
        if (access && !hidden) {
          await ctx.request({ method: "DELETE", path: "/auth/sessions/current", body: {}, session: ownTokens(access) });
        }
      } catch (error) {
        if (!isKnownError(error, "REFRESH_TOKEN_ERROR")) throw error;
      } finally {
        if (!hidden) session.clear();
      }
    },

    async signInWithCredential(email, password) {
      const { body } = await ctx.request<SignInResponse>({
        method: "POST",
        path: "/auth/password/sign-in",
        body: { email, password },
      });
      return store(body);
    },

    async signUpWithCredential(email, password, options = {}) {
      const callback =
        options.verificationCallbackUrl ??
        absoluteUrl(withReturnTo(urls.emailVerification, relativeReturnTo(options.afterAuthReturnTo)));
      const { body } = await ctx.request<SignInResponse>({
        method: "POST",
        path: "/auth/password/sign-up",
        body: { email, password, verification_callback_url: callback },
        // An anonymous session signing up becomes this account, keeping its id (service-api A7.3).
        session: await anonymousSession(),
      });
      return store(body);
    },

    signUpAnonymously() {
      // One sign-up at a time however many components ask; none while any session is kept
      // (one this app does not show included: it is not the app's to replace).
      anonymousSignUp ??= (async () => {
        if (!session.allowsKind("anonymous")) {
          throw new AuthmwError(
            "Anonymous users are not shown by this app: set allowAnonymous on AuthProvider (or createAuthClient) to sign up anonymously.",
          );
        }
        if (session.getState().refreshToken) return client.getUser();
        const { body } = await ctx.request<SignInResponse>({ method: "POST", path: "/auth/anonymous/sign-up", body: {} });
        return store(body);
      })().finally(() => {
        anonymousSignUp = null;
      });
      return anonymousSignUp;
    },

    async sendMagicLinkEmail(email, options = {}) {
      const page = withReturnTo(urls.magicLinkCallback, relativeReturnTo(options.afterAuthReturnTo));
      const callback_url = callbackUrl("sendMagicLinkEmail", page, options.callbackUrl);
      const { body } = await ctx.request<{ nonce: string }>({
        method: "POST",
        path: "/auth/otp/send-sign-in-code",
        body: { email, callback_url },
      });
      return { nonce: body.nonce };
    },

    async signInWithMagicLink(code, nonce) {
      const full = nonce === undefined ? code.trim() : otpCode(code, nonce);
      const { body } = await ctx.request<SignInResponse>({
        method: "POST",
        path: "/auth/otp/sign-in",
        body: { code: full },
        // A new address upgrades an anonymous session (service-api A7.3); a known one signs into its account.
        session: await anonymousSession(),
      });
      return signedIn(body);
    },

    async signInWithMfa(attemptCode, totp) {
      const { body } = await ctx.request<SignInResponse>({
        method: "POST",
        path: "/auth/mfa/sign-in",
        body: { code: attemptCode, type: "totp", totp: totp.replace(/\s/g, "") },
      });
      return signedIn(body);
    },

    async sendForgotPasswordEmail(email, options = {}) {
      const callback_url = callbackUrl("sendForgotPasswordEmail", urls.passwordReset, options.callbackUrl);
      await ctx.request({ method: "POST", path: "/auth/password/send-reset-code", body: { email, callback_url } });
    },

    async verifyPasswordResetCode(code) {
      await ctx.request({ method: "POST", path: "/auth/password/reset/check-code", body: { code } });
    },

    async resetPassword({ code, password }) {
      await ctx.request({ method: "POST", path: "/auth/password/reset", body: { code, password } });
    },

    async updatePassword({ oldPassword, newPassword }) {
      // The session's x-stack-refresh-token goes with it, so this session is the one that survives.
      await ctx.request({
        method: "POST",
        path: "/auth/password/update",
        body: { old_password: oldPassword, new_password: newPassword },
        session,
      });
    },

    async setPassword({ password }) {
      await ctx.request({ method: "POST", path: "/auth/password/set", body: { password }, session });
      await ctx.refreshUser().catch(() => {});
    },

    async sendVerificationEmail(options = {}) {
      const callback_url = callbackUrl("sendVerificationEmail", urls.emailVerification, options.callbackUrl);
      const state = client.getUserState();
      const user = state.status === "signed-in" ? state.user : await client.getUser();
      if (!user) throw new AuthmwError("sendVerificationEmail needs a signed-in user.");
      if (!user.primaryEmail) throw new AuthmwError("The signed-in user has no primary e-mail to verify.");
      await ctx.request({
        method: "POST",
        path: "/contact-channels/send-verification-code",
        body: { email: user.primaryEmail, callback_url },
        session,
      });
    },

    async verifyEmail(code) {
      await ctx.request({ method: "POST", path: "/contact-channels/verify", body: { code } });
      ctx.caches.contactChannels.invalidate();
      if (client.getUserState().status === "signed-in") await ctx.refreshUser().catch(() => {});
    },

    async signInWithPasskey(options = {}) {
      const { body: started } = await ctx.request<PasskeyChallenge<PublicKeyCredentialRequestOptionsJSON>>({
        method: "POST",
        path: "/auth/passkey/initiate-passkey-authentication",
        body: {},
      });
      const answer = await getCredential(authenticationOptions(started.options_json, location.hostname), options.autofill);
      const { body } = await ctx.request<SignInResponse>({
        method: "POST",
        path: "/auth/passkey/sign-in",
        body: { authentication_response: answer, code: started.code },
      });
      return signedIn(body);
    },

    async registerPasskey() {
      const { body: started } = await ctx.request<PasskeyChallenge<PublicKeyCredentialCreationOptionsJSON>>({
        method: "POST",
        path: "/auth/passkey/initiate-passkey-registration",
        body: {},
        session,
      });
      const credential = await createCredential(registrationOptions(started.options_json, location.hostname));
      await ctx.request({
        method: "POST",
        path: "/auth/passkey/register",
        body: { credential, code: started.code },
        session,
      });
      return userAfterChange();
    },

    removePasskey() {
      return client.updateUser({ passkeyAuthEnabled: false });
    },

    async createTotpSetup() {
      const [project, user] = await Promise.all([client.getProject(), client.getUser()]);
      if (!user) throw new AuthmwError("Sign in first: TOTP is set up for the signed-in user.");
      return createTotpSetup(project.displayName || project.id, user.primaryEmail ?? user.displayName ?? user.id);
    },

    async enableTotp(setup, code) {
      await checkTotpSetupCode(setup, code);
      return client.updateUser({ totpSecretBase64: setup.secretBase64 });
    },

    disableTotp() {
      return client.updateUser({ totpSecretBase64: null });
    },
    async checkCliLogin(loginCode) {
      await ctx.request({ method: "POST", path: "/auth/cli/complete", body: { login_code: loginCode, mode: "check" } });
    },
    async confirmCliLogin(loginCode) {
      const refreshToken = session.getState().refreshToken;
      if (!refreshToken) throw new AuthmwError("Nobody is signed in here: sign in before confirming a CLI sign-in.");
      const body = { login_code: loginCode, mode: "complete", refresh_token: refreshToken };
      await ctx.request({ method: "POST", path: "/auth/cli/complete", body });
    },
  };
}
