import { useAuth } from "../hooks";
import { CredentialPage } from "./credential-form";

export function SignIn() {
  const auth = useAuth();
  return <CredentialPage mode="sign-in" submit={(email, password) => auth.signIn(email, password)} afterUrl={auth.urls.afterSignIn} />;
}
