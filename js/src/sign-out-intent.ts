// Tells the app's own sign-out links from any other way of reaching the sign-out page (issue 26:
// a page of another site could navigate the browser to {handler}/sign-out, and a page that signs
// out on arrival would sign the user out). The app's links carry a one-time random value that is
// also kept in this tab's sessionStorage, which only pages of the app's own origin can read or
// write; the page signs out on arrival only when the two match, and asks for a click otherwise.
import { randomNonce } from "./random.js";

/** The query parameter of the sign-out page that carries the one-time value. */
export const SIGN_OUT_INTENT_PARAM = "intent";
const STORAGE_KEY = "authmw-sign-out-intent";

function sessionStore(): Storage | null {
  try {
    return window.sessionStorage;
  } catch {
    return null; // no window, or storage switched off: every arrival asks
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
  storage.setItem(STORAGE_KEY, value);
  return `${signOutUrl}${signOutUrl.includes("?") ? "&" : "?"}${SIGN_OUT_INTENT_PARAM}=${value}`;
}

/** Whether `search` (a URL's query) carries the value kept in this tab, without using it up. */
export function hasSignOutIntent(search: string, storage: Storage | null = sessionStore()): boolean {
  const given = new URLSearchParams(search).get(SIGN_OUT_INTENT_PARAM);
  return !!given && given === storage?.getItem(STORAGE_KEY);
}

/** Uses the kept value up (on any arrival at the page), so that no URL signs out twice. */
export function forgetSignOutIntent(storage: Storage | null = sessionStore()): void {
  storage?.removeItem(STORAGE_KEY);
}
