// The note behind the verification notice (see verification-note-key.ts): written by the
// sign-up form, read and removed by the notice. Not in the first load.
import type { CurrentUser } from "../models.js";
import { NOTE_KEY } from "./verification-note-key.js";

/** The note: the new user's id and the address the verification e-mail went to. */
export interface VerificationNote {
  user: string;
  email: string;
}

function announce(): void {
  dispatchEvent(new Event(NOTE_KEY));
}

export function readNote(): VerificationNote | null {
  try {
    const note = JSON.parse(sessionStorage.getItem(NOTE_KEY) ?? "null") as Partial<VerificationNote> | null;
    return typeof note?.user === "string" && typeof note.email === "string" ? { user: note.user, email: note.email } : null;
  } catch {
    return null;
  }
}

/** Notes the verification e-mail a sign-up sent: for a shown user whose address is not verified yet. */
export function noteVerificationSent(user: CurrentUser | null): void {
  if (!user?.primaryEmail || user.primaryEmailVerified || user.isAnonymous) return;
  try {
    sessionStorage.setItem(NOTE_KEY, JSON.stringify({ user: user.id, email: user.primaryEmail } satisfies VerificationNote));
  } catch {
    return;
  }
  announce();
}

export function clearNote(): void {
  try {
    sessionStorage.removeItem(NOTE_KEY);
  } catch {
    // nothing was kept
  }
  announce();
}
