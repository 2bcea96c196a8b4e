import { useCallback } from "react";
import { leave } from "../return-to.js";
import { useAuthController } from "./context.js";

export type { RedirectMethod } from "./redirect-method.js";

/**
 * A function that leaves for `url` (a handler page's address or a return path already judged),
 * replacing the current page, with the provider's redirect method (see leave).
 */
export function useAuthRedirect(): (url: string) => void {
  const controller = useAuthController("useAuthRedirect");
  return useCallback((url: string) => leave(url, controller.navigate), [controller]);
}
