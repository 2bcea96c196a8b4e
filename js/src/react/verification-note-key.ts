// After a password sign-up the service sends a verification e-mail; the user is told so by a
// notice that outlives the redirect to the after-sign-up page (issue 41). The sign-up form leaves
// a note in the tab's sessionStorage (whose account, which address) and announces it with an
// event of the same name; the provider, which checks only that a note is there, then loads the
// notice, which reads the note and removes it once dismissed, verified or no longer the user's.

/** The sessionStorage key of the note, and the name of the event that announces a change. */
export const NOTE_KEY = "authmw-verification-sent";

/** Is a note there? (Storage a browser refuses, as in some private windows, holds none.) */
export function hasNote(): boolean {
  try {
    return sessionStorage.getItem(NOTE_KEY) !== null;
  } catch {
    return false;
  }
}
