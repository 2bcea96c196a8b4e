import { AuthStyles, CredentialSignUp, SignInButton } from "@authmw/react";

/**
 * /custom-sign-up: a sign-up page of the app's own, with the building block of the handler's
 * sign-up form. Signed up, the user goes to the after-sign-up page, where <AuthProvider> says
 * that a verification e-mail was sent, as after the handler's sign-up page.
 */
export function CustomSignUp() {
  return (
    <div className="authmw-page" data-testid="custom-sign-up">
      <AuthStyles />
      <main className="authmw-card">
        <header className="authmw-card-header">
          <h1>Join the example</h1>
        </header>
        <div className="authmw-card-body">
          <CredentialSignUp />
        </div>
        <footer className="authmw-card-footer">
          <p>Have an account?</p>
          <SignInButton variant="secondary">Sign in</SignInButton>
        </footer>
      </main>
    </div>
  );
}
