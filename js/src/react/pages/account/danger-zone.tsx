import { useState } from "react";
import { useFocusSwap } from "./focus-swap.js";
import { useSectionKit } from "./kit.js";

/** Account deletion, behind a confirmation that Escape or Cancel closes. */
function DangerZone() {
  const { useAuth, useMessages, useAuthRedirect, FormError, useSubmit } = useSectionKit();
  const auth = useAuth();
  const m = useMessages();
  const leave = useAuthRedirect();
  const submit = useSubmit();
  const [confirming, setConfirming] = useState(false);
  const { inside: confirmRef, opener: openRef } = useFocusSwap<HTMLButtonElement, HTMLButtonElement>(confirming);

  return (
    <>
      <p>{m.deleteAccountWarning}</p>
      {confirming ? (
        <div
          className="authmw-confirm"
          role="group"
          aria-label={m.deleteAccountTitle}
          onKeyDown={(event) => {
            if (event.key === "Escape" && !submit.pending) {
              event.stopPropagation();
              setConfirming(false);
            }
          }}
        >
          <p className="authmw-hint">{m.deleteAccountConfirmQuestion}</p>
          <div className="authmw-actions">
            <button
              ref={confirmRef}
              type="button"
              className="authmw-danger"
              disabled={submit.pending}
              data-testid="delete-account-confirm"
              onClick={async () => {
                if ((await submit.run(() => auth.deleteUser())).ok) leave(auth.urls.afterSignOut);
              }}
            >
              {m.confirmDeleteAccount}
            </button>
            <button type="button" disabled={submit.pending} onClick={() => setConfirming(false)}>
              {m.cancel}
            </button>
          </div>
        </div>
      ) : (
        <button ref={openRef} type="button" className="authmw-danger-outline" onClick={() => setConfirming(true)} data-testid="delete-account">
          {m.deleteAccount}
        </button>
      )}
      <FormError id={submit.formErrorId} message={submit.error} />
    </>
  );
}

export default DangerZone;
