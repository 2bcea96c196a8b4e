import { useEffect, useRef, useState } from "react";
import { useLocation } from "react-router";
import { AuthLink } from "../auth-link.js";
import { forgetSignOutIntent, hasSignOutIntent } from "../../sign-out-intent.js";
import { useAuthRedirect } from "../redirect.js";
import { useAuth } from "../use-auth.js";
import { useMessages } from "../messages.js";
import { AuthPage } from "./layout.js";

/**
 * {handler}/sign-out. Reached through the app's own sign-out links (SignOutLink, which carry a
 * one-time value kept in this tab) it signs out at once; reached any other way (another site's
 * link or redirect, a typed URL) it asks "Sign out?" and signs out on the click, so another site
 * cannot sign the user out. Nobody signed in: it goes on to the after-sign-out URL. After
 * signing out it goes there too (the local tokens are cleared even when the call fails).
 */
export function SignOut() {
  const auth = useAuth();
  const m = useMessages();
  const leave = useAuthRedirect();
  const { search } = useLocation();
  // Read on the first render, used up in the effect (React may render twice, never sign out twice).
  const [fromApp] = useState(() => hasSignOutIntent(search));
  const [signingOut, setSigningOut] = useState(fromApp);
  const started = useRef(false);

  const signOut = () => {
    if (started.current) return;
    started.current = true;
    setSigningOut(true);
    auth
      .signOut()
      .catch((error: unknown) => console.warn("Sign-out call failed; the local session was cleared anyway.", error))
      .finally(() => leave(auth.urls.afterSignOut));
  };

  useEffect(() => {
    forgetSignOutIntent();
    if (fromApp) signOut();
    // eslint-disable-next-line react-hooks/exhaustive-deps -- once per arrival
  }, []);

  const nobody = auth.status === "signed-out";
  useEffect(() => {
    if (nobody && !started.current) {
      started.current = true;
      leave(auth.urls.afterSignOut);
    }
  }, [nobody, leave, auth.urls.afterSignOut]);

  if (signingOut || nobody) {
    return (
<AuthPage title={m.signingOutTitle} busy={m.signingYouOut} />
    );
  }
  const who = auth.user ? (auth.user.primaryEmail ?? auth.user.displayName ?? null) : null;
  return (
    <AuthPage title={m.signOutTitle}>
      <p data-testid="sign-out-prompt">
        {who && (
          <>
            {m.signedInAs} <strong>{who}</strong>.{" "}
          </>
        )}
        {m.signOutQuestion}
      </p>
      <div className="authmw-actions">
        <button type="button" className="authmw-button authmw-primary" onClick={signOut} data-testid="sign-out-confirm">
          {m.signOut}
        </button>
        <AuthLink className="authmw-button" to={auth.urls.home} data-testid="sign-out-cancel">
          {m.cancel}
        </AuthLink>
      </div>
    </AuthPage>
  );
}
