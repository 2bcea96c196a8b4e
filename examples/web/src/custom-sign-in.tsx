import {
  AuthStyles,
  CredentialSignIn,
  OAuthButtonGroup,
  SignedIn,
  SignedOut,
  SignUpButton,
  SignOutLink,
  UserAvatar,
  useUser,
} from "@authmw/react";

/**
 * /custom-sign-in: a sign-in page of the app's own, put together from the building blocks the
 * handler pages are made of. The blocks take the handler pages' stylesheet (<AuthStyles />)
 * inside an element of class `authmw-page`; the rest of the page is the app's.
 */
export function CustomSignIn() {
  const user = useUser();
  return (
    <div className="authmw-page" data-testid="custom-sign-in">
      <AuthStyles />
      <main className="authmw-card">
        <header className="authmw-card-header">
          <h1>Welcome back to the example</h1>
        </header>
        <div className="authmw-card-body">
          <SignedOut>
            <OAuthButtonGroup />
            <CredentialSignIn />
          </SignedOut>
          <SignedIn>
            <p className="custom-who">
              <UserAvatar size="large" />
              <span data-testid="custom-signed-in-as">{user.user?.primaryEmail}</span>
            </p>
            <SignOutLink className="authmw-button">Sign out</SignOutLink>
          </SignedIn>
        </div>
        <SignedOut>
          <footer className="authmw-card-footer">
            <p>New here?</p>
            <SignUpButton variant="secondary">Create an account</SignUpButton>
          </footer>
        </SignedOut>
      </main>
    </div>
  );
}
