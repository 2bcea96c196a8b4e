// @authmw/react: the framework-free core plus the React provider, hooks and handler pages.
export * from "./core";
export { AuthProvider } from "./react/provider";
export type { AuthProviderProps } from "./react/provider";
export { useAuth, useUser } from "./react/hooks";
export type { UseAuthResult } from "./react/hooks";
export { AuthHandler } from "./react/handler";
export { SignIn } from "./react/pages/sign-in";
export { SignUp } from "./react/pages/sign-up";
export { SignOut } from "./react/pages/sign-out";
export { EmailVerification } from "./react/pages/email-verification";
export { HandlerError, HandlerNotFound } from "./react/pages/error";
export { describeError } from "./react/messages";
