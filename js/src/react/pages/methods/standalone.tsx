import { useState, type ComponentType } from "react";
import { useFinishSignIn, useReturnTo } from "../layout.js";
import { MfaPrompt } from "../mfa.js";
import type { AuthMode, MethodProps } from "./types.js";

/** A sign-in method's form on its own: the TOTP prompt in its place when the account asks for it. */
export function Standalone({ mode, Form }: { mode: AuthMode; Form: ComponentType<MethodProps> }) {
  const returnTo = useReturnTo();
  const finish = useFinishSignIn();
  const [attemptCode, setAttemptCode] = useState<string | null>(null);
  if (attemptCode) return <MfaPrompt attemptCode={attemptCode} onSignedIn={finish} />;
  return (
    <Form
      mode={mode}
      returnTo={returnTo}
      config={null}
      onSignedIn={(isNewUser) => finish({ user: null, isNewUser: Boolean(isNewUser) })}
      onMfaRequired={setAttemptCode}
    />
  );
}
