import { useEffect, useState, type ReactNode } from "react";
import { createAuthClient } from "../client.js";
import type { AuthController } from "../controller.js";
import type { CookieFormat, CookieSameSite } from "../cookies.js";
import type { AuthUrlOverrides } from "../urls.js";
import { AuthContext } from "./context.js";
import { RedirectMethodNavigation, type RedirectMethod } from "./redirect-method.js";

export interface AuthProviderProps {
  projectId: string;
  publishableClientKey?: string | null;
  /** API URL of the service, without /api/v1 (e.g. http://localhost:8102). */
  baseUrl: string;
  /** Where <AuthHandler> is mounted; default "/handler". */
  handlerPath?: string;
  urls?: AuthUrlOverrides;
  /** How the refresh cookie is written: "2.7" (default, read by every SDK) or "2.8" (structured). */
  cookieFormat?: CookieFormat;
  /** The cookies' SameSite attribute: "lax" (default), "strict", or "none" (https pages only). */
  cookieSameSite?: CookieSameSite;
  /**
   * How every redirect of the package goes to a page on this origin: the sign-in page of
   * `useUser({ or: "redirect" })`, <RedirectToSignIn> and `redirectToSignIn()`, a restricted
   * user's onboarding page, the page after signing in, up or out. "window" (default) loads the
   * page, so server-rendered pages see the new session; "router" navigates with react-router
   * (when the provider is inside a router; outside one it loads the page); `{ navigate }` calls
   * the app's own navigation (e.g. Next.js's router) with the path, query and hash. A page on
   * another origin (e.g. a hosted sign-in page) is always loaded.
   */
  redirectMethod?: RedirectMethod;
  /**
   * Show anonymous users (API 2.8; the 2.8 SDK creates them on its own and writes their tokens
   * into the shared cookies) as signed in, with `user.isAnonymous`; requests with their tokens
   * then send `x-stack-allow-anonymous-user: true`. Default false: such a session counts as
   * signed out, and is left as it is.
   */
  allowAnonymous?: boolean;
  /** The same for restricted users (e.g. an unverified e-mail where the project requires verification): `user.isRestricted`. */
  allowRestricted?: boolean;
  /**
   * What a restricted user (API 2.8: e-mail not verified where the project requires it, or
   * restricted by an administrator) meets in an app that does not accept restricted users
   * (`allowRestricted` false): "onboarding" (default) sends them from any page outside the
   * handler to `urls.onboarding` ({handler}/onboarding: verify the e-mail, or read the
   * administrator's reason) and back once they may continue; "signed-out" leaves them where
   * they are, as a visitor who is not signed in. (A `client` given here keeps its own option.)
   */
  restrictedUsers?: "onboarding" | "signed-out";
  /** Use this controller instead of creating one (advanced; see also AuthProviderForTesting). */
  client?: AuthController;
  children?: ReactNode;
}

/**
 * Holds one auth client for the tree below. The client is created once, on first render; later
 * changes of the configuration props are ignored (remount the provider to switch projects).
 */
export function AuthProvider({ client, children, redirectMethod = "window", restrictedUsers = "onboarding", ...config }: AuthProviderProps) {
  const [controller] = useState<AuthController>(() => client ?? createAuthClient({ ...config, restrictedUsers }));
  // RedirectMethodNavigation's effect runs before this one: the first user load already redirects by the method.
  useEffect(() => controller.start(), [controller]);
  return (
    <AuthContext.Provider value={controller}>
      <RedirectMethodNavigation controller={controller} method={redirectMethod} />
      {children}
    </AuthContext.Provider>
  );
}
