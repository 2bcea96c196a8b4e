import { useEffect, useRef } from "react";
import { useAuthRedirect } from "../redirect";
import { useAuth } from "../hooks";
import { useMessages } from "../messages";
import { AuthPage } from "./layout";

/** Signs out on arrival, then goes to the after-sign-out URL (local tokens are cleared even on errors). */
export function SignOut() {
  const auth = useAuth();
  const m = useMessages();
  const leave = useAuthRedirect();
  const started = useRef(false);
  useEffect(() => {
    if (started.current) return;
    started.current = true;
    auth
      .signOut()
      .catch((error: unknown) => console.warn("Sign-out call failed; the local session was cleared anyway.", error))
      .finally(() => leave(auth.urls.afterSignOut));
  }, [auth, leave]);
  return (
    <AuthPage title={m.signingOutTitle}>
      <p role="status" className="authmw-hint">
        {m.signingYouOut}
      </p>
    </AuthPage>
  );
}
