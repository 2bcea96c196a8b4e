import { createContext, useContext, type ReactNode } from "react";

/** Which palette the handler pages use: the browser's preference ("system", default) or a fixed one. */
export type ColorScheme = "light" | "dark" | "system";

export interface HandlerOptions {
  colorScheme: ColorScheme;
  /** Shown above the project's name on the card: an image URL or any element. */
  logo?: ReactNode;
  /** The name on the card; default: the project's display name from the service. */
  appName?: string;
}

export const HandlerOptionsContext = createContext<HandlerOptions>({ colorScheme: "system" });
HandlerOptionsContext.displayName = "AuthHandlerOptionsContext";

export const useHandlerOptions = (): HandlerOptions => useContext(HandlerOptionsContext);
