import { useAuth } from "../hooks";
import { CredentialPage } from "./credential-form";

export function SignUp() {
  const auth = useAuth();
  return (
    <CredentialPage
      mode="sign-up"
      submit={(email, password, returnTo) => auth.signUp(email, password, { afterAuthReturnTo: returnTo })}
      afterUrl={auth.urls.afterSignUp}
    />
  );
}
