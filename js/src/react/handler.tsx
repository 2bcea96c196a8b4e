import { useMemo, type ReactNode } from "react";
import { Route, Routes } from "react-router";
import { HandlerOptionsContext, type ColorScheme } from "./handler-options.js";
import { DEFAULT_MESSAGES, MessagesContext, type Messages } from "./messages.js";
import { AccountSettings } from "./pages/account/account-settings.js";
import { CliAuthConfirm } from "./pages/cli-auth-confirm.js";
import { EmailVerification } from "./pages/email-verification.js";
import { HandlerError, HandlerNotFound } from "./pages/error.js";
import { ForgotPassword } from "./pages/forgot-password.js";
import { MagicLinkCallback } from "./pages/magic-link-callback.js";
import { OAuthCallback } from "./pages/oauth-callback.js";
import { Onboarding } from "./pages/onboarding.js";
import { PasswordReset } from "./pages/password-reset.js";
import { SignIn } from "./pages/sign-in.js";
import { SignOut } from "./pages/sign-out.js";
import { SignUp } from "./pages/sign-up.js";
import { TeamCreation } from "./pages/team-creation.js";
import { TeamInvitation } from "./pages/team-invitation.js";
import { AuthStyles } from "./styles.js";

export interface AuthHandlerProps {
  /** Render the default stylesheet (see DEFAULT_STYLES); false leaves all styling to the app. */
  defaultStyles?: boolean;
  /** "system" (default) follows the browser's prefers-color-scheme; "light" or "dark" fixes the palette. */
  colorScheme?: ColorScheme;
  /** Replaces any of the pages' texts (see DEFAULT_MESSAGES). */
  messages?: Partial<Messages>;
  /** The app's logo on the card: an image URL or an element. */
  logo?: ReactNode;
  /** The name on the card; default: the project's display name. */
  appName?: string;
}

/**
 * The handler pages. Mount under the handler path given to <AuthProvider>:
 * `<Route path="/handler/*" element={<AuthHandler />} />`.
 */
export function AuthHandler({ defaultStyles = true, colorScheme = "system", messages, logo, appName }: AuthHandlerProps) {
  const merged = useMemo(() => (messages ? { ...DEFAULT_MESSAGES, ...messages } : DEFAULT_MESSAGES), [messages]);
  const options = useMemo(() => ({ colorScheme, logo, appName }), [colorScheme, logo, appName]);
  return (
    <MessagesContext.Provider value={merged}>
      <HandlerOptionsContext.Provider value={options}>
        {defaultStyles && <AuthStyles />}
        <Routes>
          <Route path="sign-in" element={<SignIn />} />
          <Route path="sign-up" element={<SignUp />} />
          <Route path="sign-out" element={<SignOut />} />
          <Route path="email-verification" element={<EmailVerification />} />
          <Route path="onboarding" element={<Onboarding />} />
          <Route path="forgot-password" element={<ForgotPassword />} />
          <Route path="password-reset" element={<PasswordReset />} />
          <Route path="magic-link-callback" element={<MagicLinkCallback />} />
          <Route path="oauth-callback" element={<OAuthCallback />} />
          <Route path="team-invitation" element={<TeamInvitation />} />
          <Route path="cli-auth-confirm" element={<CliAuthConfirm />} />
          <Route path="team-creation" element={<TeamCreation />} />
          <Route path="account-settings/*" element={<AccountSettings />} />
          <Route path="error" element={<HandlerError />} />
          <Route path="*" element={<HandlerNotFound />} />
        </Routes>
      </HandlerOptionsContext.Provider>
    </MessagesContext.Provider>
  );
}
