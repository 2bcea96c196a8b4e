import { useMemo } from "react";
import { ApiKeyManager } from "./api-key-manager.js";
import { useSectionKit } from "./kit.js";

/** The signed-in user's API keys (API 2.8): for scripts that call the app as them. */
function ApiKeys() {
  const { useAuth, useMessages } = useSectionKit();
  const auth = useAuth();
  const m = useMessages();
  const calls = useMemo(() => auth.apiKeys, [auth.apiKeys]);
  return (
    <>
      <p className="authmw-hint">{m.apiKeysIntro}</p>
      <ApiKeyManager calls={calls} testId="api-keys" />
    </>
  );
}

export default ApiKeys;
