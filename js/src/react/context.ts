import { createContext, useContext } from "react";
import type { AuthController } from "../controller.js";

export const AuthContext = createContext<AuthController | null>(null);
AuthContext.displayName = "AuthContext";

export function useAuthController(hook: string): AuthController {
  const controller = useContext(AuthContext);
  if (!controller) {
    throw new Error(
      `${hook}() must be called inside <AuthProvider> (or <AuthProviderForTesting> in tests); wrap your app in it.`,
    );
  }
  return controller;
}
