import { Route, Routes } from "react-router";
import { AccountSettings } from "./pages/account-settings";
import { EmailVerification } from "./pages/email-verification";
import { HandlerError, HandlerNotFound } from "./pages/error";
import { ForgotPassword } from "./pages/forgot-password";
import { MagicLinkCallback } from "./pages/magic-link-callback";
import { PasswordReset } from "./pages/password-reset";
import { SignIn } from "./pages/sign-in";
import { SignOut } from "./pages/sign-out";
import { SignUp } from "./pages/sign-up";
import { TeamInvitation } from "./pages/team-invitation";
import { AuthStyles } from "./styles";

export interface AuthHandlerProps {
  /** Render the default stylesheet (see DEFAULT_STYLES); false leaves all styling to the app. */
  defaultStyles?: boolean;
}

/**
 * The handler pages. Mount under the handler path given to <AuthProvider>:
 * `<Route path="/handler/*" element={<AuthHandler />} />`.
 */
export function AuthHandler({ defaultStyles = true }: AuthHandlerProps) {
  return (
    <>
      {defaultStyles && <AuthStyles />}
      <Routes>
      <Route path="sign-in" element={<SignIn />} />
      <Route path="sign-up" element={<SignUp />} />
      <Route path="sign-out" element={<SignOut />} />
      <Route path="email-verification" element={<EmailVerification />} />
      <Route path="forgot-password" element={<ForgotPassword />} />
      <Route path="password-reset" element={<PasswordReset />} />
      <Route path="magic-link-callback" element={<MagicLinkCallback />} />
      <Route path="team-invitation" element={<TeamInvitation />} />
      <Route path="account-settings" element={<AccountSettings />} />
      <Route path="error" element={<HandlerError />} />
      <Route path="*" element={<HandlerNotFound />} />
      </Routes>
    </>
  );
}
