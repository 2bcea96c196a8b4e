import type { AnchorHTMLAttributes, MouseEvent } from "react";
import { leave } from "../return-to.js";
import { signOutIntentUrl } from "../sign-out-intent.js";
import { useRouterNavigate } from "./redirect-method.js";
import { useAuth } from "./use-auth.js";

export type SignOutLinkProps = Omit<AnchorHTMLAttributes<HTMLAnchorElement>, "href">;

/**
 * A link to the sign-out page that signs out in one step: on a click it goes to the page with a
 * one-time value kept in this tab (see sign-out-intent.ts), so the page signs out at once. Opened
 * any other way (a new tab, another site's link, a typed URL) the page asks "Sign out?" first.
 */
export function SignOutLink({ onClick, children, ...props }: SignOutLinkProps) {
  const signOutUrl = useAuth((auth) => auth.urls.signOut);
  const navigate = useRouterNavigate();
  const click = (event: MouseEvent<HTMLAnchorElement>) => {
    onClick?.(event);
    // Only a plain click in this tab; a new tab or window gets the page that asks.
    const other = event.button || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey;
    if (event.defaultPrevented || other || (props.target && props.target !== "_self")) return;
    event.preventDefault();
    // By the rule of leave: the router for a page under its basename, else a page load.
    leave(signOutIntentUrl(signOutUrl), navigate, false);
  };
  return (
    <a {...props} href={signOutUrl} onClick={click}>
      {children}
    </a>
  );
}
