// Where the handler pages live and where users go after each step. What a user goes back to
// (after_auth_return_to, trusted redirects, callback URLs) is in return-to.ts, which the first
// load of an app does not carry.

export const DEFAULT_HANDLER_PATH = "/handler";

/** Where the handler pages live and where users go after each step (service-api C2). */
export interface AuthUrls {
  home: string;
  handler: string;
  signIn: string;
  signUp: string;
  signOut: string;
  emailVerification: string;
  /** Where a restricted user (API 2.8) verifies the e-mail or reads why an administrator restricted them. */
  onboarding: string;
  forgotPassword: string;
  passwordReset: string;
  magicLinkCallback: string;
  oauthCallback: string;
  teamInvitation: string;
  accountSettings: string;
  teamCreation: string;
  error: string;
  afterSignIn: string;
  afterSignUp: string;
  afterSignOut: string;
}

export type AuthUrlOverrides = Partial<AuthUrls>;

export function resolveUrls(handlerPath: string = DEFAULT_HANDLER_PATH, overrides: AuthUrlOverrides = {}): AuthUrls {
  const handler = handlerPath.replace(/\/+$/, "") || "";
  const home = overrides.home ?? "/";
  const afterSignIn = overrides.afterSignIn ?? home;
  return {
    home,
    handler: handler || "/",
    signIn: overrides.signIn ?? `${handler}/sign-in`,
    signUp: overrides.signUp ?? `${handler}/sign-up`,
    signOut: overrides.signOut ?? `${handler}/sign-out`,
    emailVerification: overrides.emailVerification ?? `${handler}/email-verification`,
    onboarding: overrides.onboarding ?? `${handler}/onboarding`,
    forgotPassword: overrides.forgotPassword ?? `${handler}/forgot-password`,
    passwordReset: overrides.passwordReset ?? `${handler}/password-reset`,
    magicLinkCallback: overrides.magicLinkCallback ?? `${handler}/magic-link-callback`,
    oauthCallback: overrides.oauthCallback ?? `${handler}/oauth-callback`,
    teamInvitation: overrides.teamInvitation ?? `${handler}/team-invitation`,
    accountSettings: overrides.accountSettings ?? `${handler}/account-settings`,
    teamCreation: overrides.teamCreation ?? `${handler}/team-creation`,
    error: overrides.error ?? `${handler}/error`,
    afterSignIn,
    afterSignUp: overrides.afterSignUp ?? afterSignIn,
    afterSignOut: overrides.afterSignOut ?? home,
  };
}
