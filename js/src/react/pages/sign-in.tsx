import { useAuth, useProject } from "../hooks";
import { CredentialPage } from "./credential-form";
import { MagicLinkSignIn } from "./magic-link-sign-in";

/** {handler}/sign-in: password sign-in, plus magic-link sign-in when the project has it on. */
export function SignIn() {
  const auth = useAuth();
  const project = useProject();
  const config = project.status === "ready" ? project.value.config : null;
  return (
    <CredentialPage
      mode="sign-in"
      submit={(email, password) => auth.signIn(email, password)}
      afterUrl={auth.urls.afterSignIn}
      passwordEnabled={config?.credentialEnabled ?? true}
      alternatives={config?.magicLinkEnabled ? [{ id: "magic-link", label: "E-mail link", content: <MagicLinkSignIn /> }] : []}
    />
  );
}
