import { useCallback, useContext } from "react";
import { useNavigate } from "react-router";
import { RedirectMethodContext } from "./redirect-method.js";

export { RedirectMethodContext, type RedirectMethod } from "./redirect-method.js";

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
