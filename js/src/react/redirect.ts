import { createContext, useCallback, useContext } from "react";
import { useNavigate } from "react-router";

/**
 * How the handler pages leave after signing in, up or out:
 * - "window" (default): a full page load, so pages rendered by the back end (and its guards)
 *   see the new session cookies — what a redirect back to a server-rendered page needs;
 * - "router": a react-router navigation inside the single-page app.
 */
export type RedirectMethod = "window" | "router";

export const RedirectMethodContext = createContext<RedirectMethod>("window");
RedirectMethodContext.displayName = "RedirectMethodContext";

/** A function that leaves for `url` (relative, already checked) with the provider's redirect method. */
export function useAuthRedirect(): (url: string) => void {
  const method = useContext(RedirectMethodContext);
  const navigate = useNavigate();
  return useCallback(
    (url: string) => {
      if (method === "router") navigate(url, { replace: true });
      else window.location.replace(url);
    },
    [method, navigate],
  );
}
