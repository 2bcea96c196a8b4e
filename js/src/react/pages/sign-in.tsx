import { MethodsPage } from "./methods/methods-page.js";

/** {handler}/sign-in: the sign-in methods the project enables. */
export function SignIn() {
  return <MethodsPage mode="sign-in" />;
}
