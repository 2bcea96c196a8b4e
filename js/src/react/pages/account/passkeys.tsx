import { useState } from "react";
import { useSectionKit } from "./kit.js";
import type { SectionProps } from "./section.js";

/**
 * Add a passkey (registration ceremony), see whether one is set up, remove it. The service keeps
 * one passkey per user (service-api A7.6): adding another replaces it.
 */
function Passkeys({ user }: SectionProps) {
  const { passkeysSupported, useAuth, describePasskeyError, useMessages, FormError, Status } = useSectionKit();
  const auth = useAuth();
  const m = useMessages();
  const [pending, setPending] = useState<"add" | "remove" | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);

  async function run(kind: "add" | "remove") {
    setError(null);
    setDone(null);
    if (kind === "add" && !passkeysSupported()) return setError(m.passkeysUnsupported);
    setPending(kind);
    try {
      if (kind === "add") await auth.registerPasskey();
      else await auth.removePasskey();
      setDone(kind === "add" ? m.passkeyAdded : m.passkeyRemoved);
    } catch (failure) {
      setError(describePasskeyError(failure, m));
    } finally {
      setPending(null);
    }
  }

  const has = user.passkeyAuthEnabled;
  return (
    <div className="authmw-stack">
      <p className="authmw-hint">{m.passkeysIntro}</p>
      <p data-testid="passkey-status" data-registered={has}>
        {has ? m.passkeyRegistered : m.passkeyNone}
      </p>
      <FormError message={error} />
      <Status message={done} testId="passkey-done" />
      <div className="authmw-actions">
        <button
          type="button"
          className={has ? "authmw-button" : "authmw-button authmw-primary"}
          onClick={() => void run("add")}
          disabled={pending !== null}
          data-testid="add-passkey"
        >
          {pending === "add" ? m.passkeyWaiting : has ? m.replacePasskey : m.addPasskey}
        </button>
        {has && (
          <button
            type="button"
            className="authmw-button authmw-danger"
            onClick={() => void run("remove")}
            disabled={pending !== null}
            data-testid="remove-passkey"
          >
            {pending === "remove" ? m.removing : m.removePasskey}
          </button>
        )}
      </div>
    </div>
  );
}

export default Passkeys;
