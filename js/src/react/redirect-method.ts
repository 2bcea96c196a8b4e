// The provider's redirect method: the context the pages read it from, and the part of the
// provider that hands react-router's navigation to the client. Apart from redirect.ts (what the
// pages use to leave), which an app's first load does not carry.
import { createContext, useEffect } from "react";
import { useNavigate } from "react-router";
import type { AuthController } from "../controller.js";

/**
 * How the handler pages leave after signing in, up or out:
 * - "window" (default): a full page load, so pages rendered by the back end (and its guards)
 *   see the new session cookies — what a redirect back to a server-rendered page needs;
 * - "router": a react-router navigation inside the single-page app.
 */
export type RedirectMethod = "window" | "router";

export const RedirectMethodContext = createContext<RedirectMethod>("window");
RedirectMethodContext.displayName = "RedirectMethodContext";

/**
 * With `redirectMethod="router"`, hands the client react-router's navigation for the redirects it
 * makes itself (a restricted user to the onboarding page), until it unmounts. <AuthProvider>
 * renders it only inside a router: outside one, and with "window", the client keeps
 * `location.replace`.
 */
export function RouterRedirect({ controller }: { controller: AuthController }): null {
  const navigate = useNavigate();
  useEffect(() => {
    controller.redirect = (url) => void navigate(url, { replace: true });
    return () => void (controller.redirect = undefined);
  }, [controller, navigate]);
  return null;
}
