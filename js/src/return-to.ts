// What a user goes back to: the after_auth_return_to parameter, redirects judged as the browser
// parses them (service-api A7.3), and the callback URLs of e-mail links (service-api C5). Apart from urls.ts
// (the pages' addresses), which the provider's first load needs, this is needed only by pages.
import { AuthmwError } from "./known-error.js";
import { randomNonce } from "./random.js";
import { resolveUrls } from "./urls.js";

export const RETURN_TO_PARAM = "after_auth_return_to";

export class UntrustedRedirectError extends AuthmwError {
  readonly url: string;
  constructor(url: string) {
    super(`Redirect URL ${url} is not trusted; should be relative.`);
    this.name = "UntrustedRedirectError";
    this.url = url;
  }
}

/**
 * Accepts only URLs that stay on the page's own origin: parsed as the browser will (WHATWG URL:
 * `\` is `/`, tabs and newlines dropped, dot segments resolved) against a random https host,
 * they must keep that host and https (service-api A7.3). Returns path + query + hash, which starts
 * with exactly one `/`: `/.//evil.example` resolves to the path `//evil.example`, which a browser
 * would read again as the host evil.example, so it is refused too.
 */
export function toRelativeUrl(url: string): string {
  const base = `https://${randomNonce()}.invalid`;
  let resolved: URL;
  try {
    resolved = new URL(url, base);
  } catch {
    throw new UntrustedRedirectError(url);
  }
  if (resolved.origin !== base) throw new UntrustedRedirectError(url);
  const path = resolved.pathname;
  if (!path.startsWith("/") || path.startsWith("//") || path.startsWith("/\\")) throw new UntrustedRedirectError(url);
  return `${path}${resolved.search}${resolved.hash}`;
}

/** Like toRelativeUrl, but null for a missing or untrusted URL. */
export function trustedReturnTo(url: string | null | undefined): string | null {
  if (!url) return null;
  try {
    return toRelativeUrl(url);
  } catch {
    return null;
  }
}

/** `pageUrl` with `after_auth_return_to` set (or unchanged when returnTo is null). */
export function withReturnTo(pageUrl: string, returnTo: string | null): string {
  if (!returnTo) return pageUrl;
  const [beforeHash, hash = ""] = pageUrl.split(/#(.*)/s, 2);
  const [path, query = ""] = (beforeHash ?? "").split(/\?(.*)/s, 2);
  const params = new URLSearchParams(query);
  params.set(RETURN_TO_PARAM, returnTo);
  return `${path}?${params.toString()}${hash ? `#${hash}` : ""}`;
}

interface LocationLike {
  pathname: string;
  search: string;
  hash: string;
}

/**
 * Sign-in / sign-up URL for leaving `location`: copies its after_auth_return_to, or sets it to the
 * current page (service-api A6.10).
 */
export function authPageUrl(pageUrl: string, location: LocationLike): string {
  const existing = new URLSearchParams(location.search).get(RETURN_TO_PARAM);
  return withReturnTo(pageUrl, trustedReturnTo(existing) ?? `${location.pathname}${location.search}${location.hash}`);
}

/**
 * An app's client-side navigation (react-router's `navigate`, or a wrapper of Next.js's
 * `router.replace` / `router.push`): given a path with query and hash on the page's own origin,
 * as the browser shows it, less `basename` when set: the part of the path the navigation adds
 * itself (react-router's basename, Next.js's basePath); it then gets only paths under it.
 * `state` is for the history entry (react-router's location.state).
 */
export type Navigate = ((path: string, options: { replace: boolean; state?: unknown }) => void) & { basename?: string };

/**
 * The path to hand a navigation with `basename` (see Navigate) for `url`, parsed as the browser
 * would against the current page: its path less the basename, query and hash when it is on the
 * page's own origin (not an opaque one) and under the basename, and does not start with `//`
 * (which a router would read as a host); else null: only a page load goes there. `page` is the
 * current location (tests give another).
 */
export function routerPath(url: string, basename = "", page: Location = location): string | null {
  const target = new URL(url, page.href);
  const { origin, pathname } = target;
  const base = basename.replace(/\/$/, "");
  const path = pathname.slice(base.length) || "/";
  return origin == page.origin && origin != "null" && pathname.startsWith(base) && path[0] == "/" && path[1] != "/" ? path + target.search + target.hash : null;
}

/**
 * The one way the package sends the browser to `url` (a sign-in or handler page, a page after
 * signing in; never a return path that toRelativeUrl has not judged). URLs are what the browser
 * ends up at, whichever way it goes: one routerPath accepts goes to `navigate` when the app gave
 * one (with `state` for the history entry); anything else (no `navigate`, another origin such as
 * a hosted sign-in page, a path outside the basename or one a router would read as a host) is a
 * page load, `location.replace` (the default) or `location.assign` (`replace` false: Back comes
 * back here), where `state` cannot go.
 */
export function leave(url: string, navigate?: Navigate, replace = true, page: Location = location, state?: unknown): void {
  const path = navigate && routerPath(url, navigate.basename, page);
  if (path) navigate!(path, { replace, state });
  else page[replace ? "replace" : "assign"](new URL(url, page.href).href);
}

/**
 * Sends the browser to the sign-in page, coming back to the current page afterwards; through
 * `navigate` (see Navigate) when the sign-in page is on this origin, else with a page load.
 */
export function redirectToSignIn(options: { handlerPath?: string; signInUrl?: string; navigate?: Navigate } = {}): void {
  const signIn = options.signInUrl ?? resolveUrls(options.handlerPath).signIn;
  leave(authPageUrl(signIn, location), options.navigate, false);
}

/** Absolute URL of an app path on the current origin (for callback URLs sent to the service). */
export function absoluteUrl(path: string, origin: string = window.location.origin): string {
  return new URL(path, origin).toString();
}

/** Thrown when an e-mail with a link is requested but there is nowhere for the link to point. */
export class MissingCallbackUrlError extends AuthmwError {
  constructor(what: string, page: string) {
    super(
      `${what} needs a callback URL: pass callbackUrl (an absolute URL of your ${page} page), ` +
        "or call it from a page, whose origin is then used.",
    );
    this.name = "MissingCallbackUrlError";
  }
}

/**
 * The callback URL of an e-mail link (service-api C5, "Redirects and callbacks"): the given one (must be
 * an absolute URL), else `page` on the current page's origin; neither -> MissingCallbackUrlError.
 */
export function callbackUrl(what: string, page: string, given?: string | null): string {
  if (given) {
    try {
      return new URL(given).toString();
    } catch {
      throw new AuthmwError(`${what}: callbackUrl must be an absolute URL (got ${JSON.stringify(given)}).`);
    }
  }
  const origin = typeof window !== "undefined" && window.location ? window.location.origin : null;
  if (!origin || origin === "null") throw new MissingCallbackUrlError(what, page);
  return absoluteUrl(page, origin);
}
