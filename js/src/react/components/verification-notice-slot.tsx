// Where the verification notice (issue 41) appears: <UserButton> renders this slot, and an app
// without one can render <VerificationNotice /> itself. The slot only asks whether the sign-up
// form left its note (verification-note-key.ts); the notice's own module loads when there is one.
import { lazy, Suspense, useEffect, useState, type JSX } from "react";
import { useAuthController } from "../context.js";
import { hasNote, NOTE_KEY } from "../verification-note-key.js";
import type { ComponentStyleProps } from "./theme.js";
import type { NoticeTexts } from "./notice-texts.js";

const NoticeCard = lazy(() => import("./verification-notice.js"));

export interface VerificationNoticeProps extends Pick<ComponentStyleProps, "colorScheme"> {
  /** Any part of the notice's texts replaced (a language's `texts` will do). */
  texts?: Partial<NoticeTexts>;
}

/**
 * After a password sign-up (the handler's sign-up page or <CredentialSignUp>) that sent a
 * verification e-mail: "Check your inbox: we sent a verification link to <address>", with "Send
 * again" and "Dismiss", fixed at the bottom of the window, on the tab's pages until dismissed or
 * verified. <UserButton> shows it; render it yourself (once, anywhere under <AuthProvider>) in
 * an app without a UserButton. However many are rendered, one shows.
 */
export function VerificationNotice({ texts, colorScheme }: VerificationNoticeProps): JSX.Element | null {
  const controller = useAuthController("VerificationNotice");
  const [noted, setNoted] = useState(false);
  useEffect(() => {
    const look = () => setNoted(hasNote());
    look();
    addEventListener(NOTE_KEY, look);
    return () => removeEventListener(NOTE_KEY, look);
  }, []);
  if (!noted) return null;
  return (
    <Suspense>
      <NoticeCard controller={controller} texts={texts} colorScheme={colorScheme} />
    </Suspense>
  );
}
