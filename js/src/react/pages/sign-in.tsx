import { MethodsPage } from "./methods/methods-page.js";
import type { JSX } from "react";

/** {handler}/sign-in: the sign-in methods the project enables. */
export function SignIn(): JSX.Element {
  return <MethodsPage mode="sign-in" />;
}
