import type { ReactNode } from "react";
import { authPageUrl } from "../../return-to.js";
import { AuthLink, usePageLocation } from "../auth-link.js";
import { useAuth } from "../use-auth.js";
import { textsWith, type ComponentTexts } from "./texts.js";
import { ComponentStyles, rootProps, type ComponentStyleProps } from "./theme.js";

export interface AuthButtonProps extends ComponentStyleProps {
  /** The button's text; default `texts.signIn` / `texts.signUp`. */
  children?: ReactNode;
  /** "primary" (default, the accent colour) or "secondary" (outlined). */
  variant?: "primary" | "secondary";
  texts?: Partial<ComponentTexts>;
}

/** The href of a handler page that comes back to the current page (after_auth_return_to). */
export function useAuthPageLink(page: "signIn" | "signUp"): string {
  const url = useAuth((auth) => auth.urls[page]);
  return authPageUrl(url, usePageLocation());
}

function AuthButton({ page, children, variant, colorScheme, className, texts }: AuthButtonProps & { page: "signIn" | "signUp" }) {
  const to = useAuthPageLink(page);
  const kind = variant === "secondary" ? "authmw-ui-button" : "authmw-ui-button authmw-ui-primary";
  return (
    <span {...rootProps("authmw-auth-button", className, colorScheme)}>
      <ComponentStyles />
      <AuthLink to={to} className={kind} data-testid={page === "signIn" ? "sign-in-button" : "sign-up-button"}>
        {children ?? textsWith(texts)[page]}
      </AuthLink>
    </span>
  );
}

/** A link styled as a button to the sign-in page, which comes back to this page afterwards. */
export function SignInButton(props: AuthButtonProps) {
  return <AuthButton page="signIn" {...props} />;
}

/** The same to the sign-up page. */
export function SignUpButton(props: AuthButtonProps) {
  return <AuthButton page="signUp" {...props} />;
}
