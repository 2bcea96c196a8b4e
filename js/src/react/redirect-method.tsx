// The provider's redirect method: what hands the client (and through it every redirect of the
// package, see leave in return-to.ts) the app's client-side navigation. Apart from redirect.ts
// (what the pages use to leave), which an app's first load does not carry.
import { useEffect, useMemo } from "react";
import { useHref, useInRouterContext, useNavigate } from "react-router";
import type { AuthController } from "../controller.js";
import type { Navigate } from "../return-to.js";

/**
 * How the package sends the browser to a page on the app's own origin (sign-in for a page that
 * demands a user, onboarding, the page after signing in, up or out):
 * - "window" (default): a full page load, so pages rendered by the back end (and its guards)
 *   see the new session cookies — what a redirect back to a server-rendered page needs;
 * - "router": a react-router navigation inside the single-page app (when inside a router);
 * - `{ navigate }`: the app's own navigation, e.g. Next.js's router.
 * A page on another origin (a hosted sign-in page) is always a page load. Every method ends at
 * the URL as configured: under a router's basename (`<BrowserRouter basename="/app">`) the
 * URLs include it (handlerPath "/app/handler"), "router" takes it off for the router, and a page
 * outside it is a page load.
 */
export type RedirectMethod = "window" | "router" | { navigate: Navigate };

/** Hands the client `navigate` (AuthController.navigate) until it unmounts or changes. */
function HandNavigate({ controller, navigate }: { controller: AuthController; navigate: Navigate }): null {
  useEffect(() => {
    controller.navigate = navigate;
    return () => void (controller.navigate = undefined);
  }, [controller, navigate]);
  return null;
}

/**
 * React-router's navigation as a Navigate: it takes paths as the browser shows them, so it
 * carries the router's basename (useHref("/") is the basename, "/" without one), which leave
 * takes off; without that the router would put it in front a second time.
 */
export function useRouterNavigate(): Navigate {
  const navigate = useNavigate();
  const basename = useHref("/");
  return useMemo(() => Object.assign((path: string, options: object) => void navigate(path, options), { basename }), [navigate, basename]);
}

function RouterNavigate({ controller }: { controller: AuthController }) {
  return <HandNavigate controller={controller} navigate={useRouterNavigate()} />;
}

/**
 * Hands the client the navigation of `method`: react-router's for "router" inside a router, the
 * app's own for `{ navigate }`; nothing (page loads) for "window" and for "router" outside a
 * router. Rendered before the provider's children, so its effect runs before theirs and before
 * the provider's first user load.
 */
export function RedirectMethodNavigation({ controller, method }: { controller: AuthController; method: RedirectMethod }) {
  const inRouter = useInRouterContext();
  if (typeof method == "object") return <HandNavigate controller={controller} navigate={method.navigate} />;
  return method == "router" && inRouter && <RouterNavigate controller={controller} />;
}
