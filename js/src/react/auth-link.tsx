// Links to URLs as the browser shows them (configured URLs, return paths), under a router with or
// without a basename: the same rule as leave (return-to.ts) for the package's redirects.
import type { AnchorHTMLAttributes } from "react";
import { Link, useHref, useLocation } from "react-router";
import { routerPath } from "../return-to.js";

/**
 * A link to `to`, a URL as the browser shows it: the router's link when leave would hand it to
 * the router (this origin, under the router's basename, which the link would otherwise put in
 * front a second time), else a plain link, a page load. Rendered without a page (on a server),
 * a plain link to the same URL, which the router's link then takes over.
 */
export function AuthLink({ to, ...props }: AnchorHTMLAttributes<HTMLAnchorElement> & { to: string }) {
  const base = useHref("/");
  const path = typeof location == "object" && routerPath(to, base);
  return path ? <Link to={path} {...props} /> : <a href={to} {...props} />;
}

/** The router's current location as the browser shows it (the router's basename in front of the path). */
export function usePageLocation(): { pathname: string; search: string; hash: string } {
  const { pathname, search, hash } = useLocation();
  return { pathname: useHref(pathname), search, hash };
}

/** The current page's path and query as the browser shows them: a return path. */
export function useHere(): string {
  const { pathname, search } = usePageLocation();
  return pathname + search;
}
