import { MethodsPage } from "./methods/methods-page.js";
import type { JSX } from "react";

/** {handler}/sign-up: the sign-up methods the project enables (or why sign-up is closed). */
export function SignUp(): JSX.Element {
  return <MethodsPage mode="sign-up" />;
}
