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

// The handler's pages: the path of each under the handler is its name in kebab case
// (emailVerification: {handler}/email-verification). One list rather than a line per page keeps
// the first load of an app small.
const PAGES = "signIn signUp signOut emailVerification onboarding forgotPassword passwordReset magicLinkCallback oauthCallback teamInvitation accountSettings teamCreation error";

export function resolveUrls(handlerPath: string = DEFAULT_HANDLER_PATH, overrides: AuthUrlOverrides = {}): AuthUrls {
  const handler = handlerPath.replace(/\/+$/, "") || "";
  const home = overrides.home ?? "/";
  const afterSignIn = overrides.afterSignIn ?? home;
  const urls: Record<string, string> = {
    home,
    handler: handler || "/",
    afterSignIn,
    afterSignUp: overrides.afterSignUp ?? afterSignIn,
    afterSignOut: overrides.afterSignOut ?? home,
  };
  for (const name of PAGES.split(" ") as (keyof AuthUrls)[])
    urls[name] = overrides[name] ?? `${handler}/${name.replace(/[A-Z]/g, (c) => "-" + c.toLowerCase())}`;
  return urls as unknown as AuthUrls;
}
