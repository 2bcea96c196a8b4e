import { useEffect, useState, type ReactNode } from "react";
import { createAuthClient, type AuthController } from "../client";
import type { AuthUrlOverrides } from "../urls";
import { AuthContext } from "./context";

export interface AuthProviderProps {
  projectId: string;
  publishableClientKey?: string | null;
  /** API URL of the service, without /api/v1 (e.g. http://localhost:8102). */
  baseUrl: string;
  /** Where <AuthHandler> is mounted; default "/handler". */
  handlerPath?: string;
  urls?: AuthUrlOverrides;
  /** Use this controller instead of creating one (advanced; see also AuthProviderForTesting). */
  client?: AuthController;
  children?: ReactNode;
}

/**
 * Holds one auth client for the tree below. The client is created once, on first render; later
 * changes of the configuration props are ignored (remount the provider to switch projects).
 */
export function AuthProvider({ client, children, ...config }: AuthProviderProps) {
  const [controller] = useState<AuthController>(() => client ?? createAuthClient(config));
  useEffect(() => controller.start(), [controller]);
  return <AuthContext.Provider value={controller}>{children}</AuthContext.Provider>;
}
