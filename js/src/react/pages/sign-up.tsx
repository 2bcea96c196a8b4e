import { MethodsPage } from "./methods/methods-page.js";

/** {handler}/sign-up: the sign-up methods the project enables (or why sign-up is closed). */
export function SignUp() {
  return <MethodsPage mode="sign-up" />;
}
