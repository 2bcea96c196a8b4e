// The sign-in and account flows of the client tier: password, e-mail link and code, TOTP,
// password reset and change, e-mail verification, passkeys. Each is a few service calls over
// the client's transport and session; AuthClient takes them as they are (see createFlows).
import type { PublicKeyCredentialCreationOptionsJSON, PublicKeyCredentialRequestOptionsJSON } from "@simplewebauthn/browser";
import type { AuthCaches } from "./api-context";
import type { CallbackOptions, MagicLinkOptions, SignUpOptions, UserState } from "./controller";
import { AuthmwError } from "./errors";
import { isKnownError } from "./known-error";
import { otpCode } from "./otp-code";
import type { CurrentUser, CurrentUserUpdate, Project, SignInResult } from "./models";
import {
  authenticationOptions,
  createCredential,
  getCredential,
  registrationOptions,
  type PasskeyChallenge,
} from "./passkeys";
import type { SessionAccess, SessionStore } from "./store";
import { checkTotpSetupCode, createTotpSetup, type TotpSetup } from "./totp";
import type { TokenProvider, Transport } from "./transport";
import { absoluteUrl, callbackUrl, toRelativeUrl, withReturnTo, type AuthUrls } from "./urls";

/** The service's answer to every sign-in. */
export interface SignInResponse {
  access_token: string;
  refresh_token: string;
  user_id: string;
  is_new_user?: boolean;
}

/** What the flows need of the client. */
export interface FlowContext {
  transport: Transport;
  session: SessionStore;
  urls: AuthUrls;
  caches: AuthCaches;
  /** Keeps the new session's tokens and loads its user. */
  storeSignIn(body: SignInResponse): Promise<CurrentUser | null>;
  /** Loads the user again, not sharing a load that started before the change. */
  refreshUser(): Promise<CurrentUser | null>;
  getUser(): Promise<CurrentUser | null>;
  getUserState(): UserState;
  getProject(): Promise<Project>;
  updateUser(update: CurrentUserUpdate): Promise<CurrentUser>;
}

/** A return-to URL put on an e-mail link: relative only (UntrustedRedirectError otherwise). */
const relativeReturnTo = (url: string | null | undefined) => (url ? toRelativeUrl(url) : null);

/** Length of the one-time code shown in magic-link e-mails. */
/** The flows over `ctx`, as the AuthController calls of the same names (documented there). */
export function createFlows(ctx: FlowContext) {
  const { transport, session, urls } = ctx;
  const signedIn = async (body: SignInResponse): Promise<SignInResult> => ({
    isNewUser: Boolean(body.is_new_user),
    user: await ctx.storeSignIn(body),
  });
  const userAfterChange = async (): Promise<CurrentUser> => {
    // The signed-in user after a change made outside PATCH /users/me (e.g. a new passkey).
    const user = await ctx.refreshUser();
    if (!user) throw new AuthmwError("The session ended while the change was made; sign in again.");
    return user;
  };

  return {
    /**
     * Ends the session on the service and forgets the tokens (also when the call fails). API 2.8
     * ends the session named by the access token (refreshed first when it is expired); the
     * refresh token goes along for 2.7. A REFRESH_TOKEN_ERROR means the session had already
     * ended. A session this app does not show (an anonymous or restricted user it does not
     * allow) is left as it is: it is not the app's to end, and for the app nobody is signed in.
     */
    async signOut(): Promise<void> {
      let hidden = false;
      try {
        const access = await session.getSessionAccess();
        hidden = access !== null && !access.allowed;
        if (access && !hidden) {
          // The session's own tokens; fetched (refreshed) again only when the service refuses
          // the access token (the transport then retries once).
          let current: SessionAccess | null = access;
          const tokens: TokenProvider = {
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
          await transport.request({ method: "DELETE", path: "/auth/sessions/current", body: {}, session: tokens });
        }
      } catch (error) {
        if (!isKnownError(error, "REFRESH_TOKEN_ERROR")) throw error;
      } finally {
        if (!hidden) session.clear();
      }
    },

    async signInWithCredential(email: string, password: string): Promise<CurrentUser | null> {
      const { body } = await transport.request<SignInResponse>({
        method: "POST",
        path: "/auth/password/sign-in",
        body: { email, password },
      });
      return ctx.storeSignIn(body);
    },

    async signUpWithCredential(email: string, password: string, options: SignUpOptions = {}): Promise<CurrentUser | null> {
      const callback =
        options.verificationCallbackUrl ??
        absoluteUrl(withReturnTo(urls.emailVerification, relativeReturnTo(options.afterAuthReturnTo)));
      const { body } = await transport.request<SignInResponse>({
        method: "POST",
        path: "/auth/password/sign-up",
        body: { email, password, verification_callback_url: callback },
      });
      return ctx.storeSignIn(body);
    },

    async sendMagicLinkEmail(email: string, options: MagicLinkOptions = {}): Promise<{ nonce: string }> {
      const page = withReturnTo(urls.magicLinkCallback, relativeReturnTo(options.afterAuthReturnTo));
      const callback_url = callbackUrl("sendMagicLinkEmail", page, options.callbackUrl);
      const { body } = await transport.request<{ nonce: string }>({
        method: "POST",
        path: "/auth/otp/send-sign-in-code",
        body: { email, callback_url },
      });
      return { nonce: body.nonce };
    },

    async signInWithMagicLink(code: string, nonce?: string): Promise<SignInResult> {
      const full = nonce === undefined ? code.trim() : otpCode(code, nonce);
      const { body } = await transport.request<SignInResponse>({
        method: "POST",
        path: "/auth/otp/sign-in",
        body: { code: full },
      });
      return signedIn(body);
    },

    async signInWithMfa(attemptCode: string, totp: string): Promise<SignInResult> {
      const { body } = await transport.request<SignInResponse>({
        method: "POST",
        path: "/auth/mfa/sign-in",
        body: { code: attemptCode, type: "totp", totp: totp.replace(/\s/g, "") },
      });
      return signedIn(body);
    },

    async sendForgotPasswordEmail(email: string, options: CallbackOptions = {}): Promise<void> {
      const callback_url = callbackUrl("sendForgotPasswordEmail", urls.passwordReset, options.callbackUrl);
      await transport.request({ method: "POST", path: "/auth/password/send-reset-code", body: { email, callback_url } });
    },

    async verifyPasswordResetCode(code: string): Promise<void> {
      await transport.request({ method: "POST", path: "/auth/password/reset/check-code", body: { code } });
    },

    async resetPassword({ code, password }: { code: string; password: string }): Promise<void> {
      await transport.request({ method: "POST", path: "/auth/password/reset", body: { code, password } });
    },

    async updatePassword({ oldPassword, newPassword }: { oldPassword: string; newPassword: string }): Promise<void> {
      // The session's x-stack-refresh-token goes with it, so this session is the one that survives.
      await transport.request({
        method: "POST",
        path: "/auth/password/update",
        body: { old_password: oldPassword, new_password: newPassword },
        session,
      });
    },

    async setPassword({ password }: { password: string }): Promise<void> {
      await transport.request({ method: "POST", path: "/auth/password/set", body: { password }, session });
      await ctx.refreshUser().catch(() => {});
    },

    async sendVerificationEmail(options: CallbackOptions = {}): Promise<void> {
      const callback_url = callbackUrl("sendVerificationEmail", urls.emailVerification, options.callbackUrl);
      const state = ctx.getUserState();
      const user = state.status === "signed-in" ? state.user : await ctx.getUser();
      if (!user) throw new AuthmwError("sendVerificationEmail needs a signed-in user.");
      if (!user.primaryEmail) throw new AuthmwError("The signed-in user has no primary e-mail to verify.");
      await transport.request({
        method: "POST",
        path: "/contact-channels/send-verification-code",
        body: { email: user.primaryEmail, callback_url },
        session,
      });
    },

    async verifyEmail(code: string): Promise<void> {
      await transport.request({ method: "POST", path: "/contact-channels/verify", body: { code } });
      ctx.caches.contactChannels.invalidate();
      if (ctx.getUserState().status === "signed-in") await ctx.refreshUser().catch(() => {});
    },

    async signInWithPasskey(options: { autofill?: boolean } = {}): Promise<SignInResult> {
      const { body: started } = await transport.request<PasskeyChallenge<PublicKeyCredentialRequestOptionsJSON>>({
        method: "POST",
        path: "/auth/passkey/initiate-passkey-authentication",
        body: {},
      });
      const answer = await getCredential(authenticationOptions(started.options_json, location.hostname), options.autofill);
      const { body } = await transport.request<SignInResponse>({
        method: "POST",
        path: "/auth/passkey/sign-in",
        body: { authentication_response: answer, code: started.code },
      });
      return signedIn(body);
    },

    async registerPasskey(): Promise<CurrentUser> {
      const { body: started } = await transport.request<PasskeyChallenge<PublicKeyCredentialCreationOptionsJSON>>({
        method: "POST",
        path: "/auth/passkey/initiate-passkey-registration",
        body: {},
        session,
      });
      const credential = await createCredential(registrationOptions(started.options_json, location.hostname));
      await transport.request({
        method: "POST",
        path: "/auth/passkey/register",
        body: { credential, code: started.code },
        session,
      });
      return userAfterChange();
    },

    removePasskey(): Promise<CurrentUser> {
      return ctx.updateUser({ passkeyAuthEnabled: false });
    },

    async createTotpSetup(): Promise<TotpSetup> {
      const [project, user] = await Promise.all([ctx.getProject(), ctx.getUser()]);
      if (!user) throw new AuthmwError("Sign in first: TOTP is set up for the signed-in user.");
      return createTotpSetup(project.displayName || project.id, user.primaryEmail ?? user.displayName ?? user.id);
    },

    async enableTotp(setup: TotpSetup, code: string): Promise<CurrentUser> {
      await checkTotpSetupCode(setup, code);
      return ctx.updateUser({ totpSecretBase64: setup.secretBase64 });
    },

    disableTotp(): Promise<CurrentUser> {
      return ctx.updateUser({ totpSecretBase64: null });
    },
  };
}

export type Flows = ReturnType<typeof createFlows>;
