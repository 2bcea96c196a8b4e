import { Link } from "react-router";
import { SelectedTeamSwitcher, SignedIn, SignedOut, UserButton, useAuth } from "@authmw/react";
import { useLocale } from "./language";

/** The app's header: the team switch and the user's menu signed in (a guest: the menu), the way in signed out. */
export function AppHeader() {
  const urls = useAuth((auth) => auth.urls);
  const texts = useLocale()?.texts; // ?lang=de: the components in German
  return (
    <header className="app-header" data-testid="app-header">
      <Link to="/" className="app-brand">
        authmw example
      </Link>
      <div className="app-header-actions">
        <SignedIn>
          <SelectedTeamSwitcher texts={texts} />
        </SignedIn>
        {/* A guest (the /guest page's anonymous user) gets the menu too: it offers sign-up. */}
        <SignedIn includeAnonymous>
          <UserButton texts={texts} />
        </SignedIn>
        <SignedOut includeAnonymous={false}>
          <Link to={urls.signIn} className="app-header-button" data-testid="header-sign-in">
            {texts?.signIn ?? "Sign in"}
          </Link>
        </SignedOut>
      </div>
    </header>
  );
}
