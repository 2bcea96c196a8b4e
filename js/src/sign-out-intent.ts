// Tells the app's own sign-out links from any other way of reaching the sign-out page (issue 26:
// a page of another site could navigate the browser to {handler}/sign-out, and a page that signs
// out on arrival would sign the user out). The app's links carry a one-time random value that is
// also kept in this tab's sessionStorage, which only pages of the app's own origin can read or
// write; the page signs out on arrival only when the two match, and asks for a click otherwise.
import { randomNonce } from "./random";

/** The query parameter of the sign-out page that carries the one-time value. */
export const SIGN_OUT_INTENT_PARAM = "intent";
const STORAGE_KEY = "authmw-sign-out-intent";

function sessionStore(): Storage | null {
  try {
    return typeof window !== "undefined" ? window.sessionStorage : null;
  } catch {
    return null; // storage switched off: every arrival asks
  }
}

/**
 * `signOutUrl` with a fresh one-time value, kept in this tab's sessionStorage: the sign-out page
 * reached through it signs out at once. Without sessionStorage it is `signOutUrl` itself (the
 * page then asks).
 */
export function signOutIntentUrl(signOutUrl: string, storage: Storage | null = sessionStore()): string {
  if (!storage) return signOutUrl;
  const value = randomNonce();
  try {
    storage.setItem(STORAGE_KEY, value);
  } catch {
    return signOutUrl;
  }
  const [path, hash = ""] = signOutUrl.split("#", 2);
  return `${path}${path!.includes("?") ? "&" : "?"}${SIGN_OUT_INTENT_PARAM}=${value}${hash ? `#${hash}` : ""}`;
}

/** Whether `search` (a URL's query) carries the value kept in this tab, without using it up. */
export function hasSignOutIntent(search: string, storage: Storage | null = sessionStore()): boolean {
  const given = new URLSearchParams(search).get(SIGN_OUT_INTENT_PARAM);
  let kept: string | null = null;
  try {
    kept = storage?.getItem(STORAGE_KEY) ?? null;
  } catch {
    kept = null;
  }
  return given !== null && given.length > 0 && kept === given;
}

/** Uses the kept value up (after a sign-out, or on any arrival), so that no URL signs out twice. */
export function forgetSignOutIntent(storage: Storage | null = sessionStore()): void {
  try {
    storage?.removeItem(STORAGE_KEY);
  } catch {
    // nothing kept
  }
}
