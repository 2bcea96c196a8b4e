import { Route, Routes } from "react-router";
import { EmailVerification } from "./pages/email-verification";
import { HandlerError, HandlerNotFound } from "./pages/error";
import { SignIn } from "./pages/sign-in";
import { SignOut } from "./pages/sign-out";
import { SignUp } from "./pages/sign-up";

/**
 * The handler pages. Mount under the handler path given to <AuthProvider>:
 * `<Route path="/handler/*" element={<AuthHandler />} />`.
 */
export function AuthHandler() {
  return (
    <Routes>
      <Route path="sign-in" element={<SignIn />} />
      <Route path="sign-up" element={<SignUp />} />
      <Route path="sign-out" element={<SignOut />} />
      <Route path="email-verification" element={<EmailVerification />} />
      <Route path="error" element={<HandlerError />} />
      <Route path="*" element={<HandlerNotFound />} />
    </Routes>
  );
}
