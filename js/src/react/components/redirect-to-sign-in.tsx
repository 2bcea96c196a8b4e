import { useEffect } from "react";
import { useAuthController } from "../context.js";
import { redirectToSignInPage } from "../hooks.js";

/**
 * Sends the browser to the sign-in page as soon as it renders, coming back to the current page
 * after signing in (the same return path as `useUser({ or: "redirect" })`). Render it where a
 * signed-out visitor must not stay: `<SignedOut><RedirectToSignIn /></SignedOut>`; a restricted
 * user the app does not show goes to the onboarding page instead. Renders nothing.
 */
export function RedirectToSignIn() {
  const controller = useAuthController("RedirectToSignIn");
  useEffect(() => redirectToSignInPage(controller), [controller]);
  return null;
}
