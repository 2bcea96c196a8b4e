import { useEffect, useState } from "react";
import { Link } from "react-router";
import { useAuth, useUser } from "@authmw/react";
import { AppHeader } from "./header";

/**
 * /guest: try the app before signing up. useUser({ or: "anonymous" }) makes an anonymous user
 * (API 2.8) when nobody is signed in; what the guest saves (a note in the user's client
 * metadata) stays with the account when they sign up, because signing up keeps the user id.
 */
/** The user's client metadata as an object ({} when it is something else). */
function metadataOf(user: { clientMetadata: unknown } | null): Record<string, unknown> {
  const meta = user?.clientMetadata;
  return meta && typeof meta === "object" && !Array.isArray(meta) ? (meta as Record<string, unknown>) : {};
}

function GuestNotes() {
  const user = useUser({ or: "anonymous" });
  const auth = useAuth();
  const saved = metadataOf(user.user).note;
  const [note, setNote] = useState("");
  const [status, setStatus] = useState<"idle" | "saving" | "saved" | "failed">("idle");
  useEffect(() => setNote(typeof saved === "string" ? saved : ""), [saved]);

  if (user.status !== "signed-in") {
    return (
      <p data-testid="guest-status" data-status={user.status} role="status">
        {user.status === "loading" && user.error ? "Could not start a guest session; reload to try again." : "Starting a guest session…"}
      </p>
    );
  }
  const save = async (event: React.FormEvent) => {
    event.preventDefault();
    setStatus("saving");
    try {
      await auth.updateUser({ clientMetadata: { ...metadataOf(user.user), note } });
      setStatus("saved");
    } catch {
      setStatus("failed");
    }
  };
  return (
    <>
      <p data-testid="guest-status" data-status="signed-in" data-anonymous={String(user.user.isAnonymous === true)}>
        {user.user.isAnonymous ? (
          <>You are trying the app as a guest.</>
        ) : (
          <>
            Signed in as <strong data-testid="guest-email">{user.user.primaryEmail}</strong>; your note is yours to keep.
          </>
        )}{" "}
        (user id <span data-testid="guest-id" style={{ overflowWrap: "anywhere" }}>{user.user.id}</span>)
      </p>
      <form onSubmit={save}>
        <label htmlFor="guest-note">Your note</label>
        <br />
        <textarea id="guest-note" rows={3} cols={40} value={note} onChange={(e) => setNote(e.target.value)} />
        <br />
        <button type="submit" disabled={status === "saving"}>
          Save note
        </button>{" "}
        <span role="status" data-testid="guest-note-status">
          {status === "saved" ? "Saved." : status === "failed" ? "Could not save the note." : ""}
        </span>
      </form>
      {user.user.isAnonymous && (
        <p>
          Keep your note:{" "}
          <Link to={`${auth.urls.signUp}?after_auth_return_to=%2Fguest`} data-testid="guest-sign-up">
            Sign up
          </Link>{" "}
          or{" "}
          <Link to={`${auth.urls.signIn}?after_auth_return_to=%2Fguest`} data-testid="guest-sign-in">
            sign in with an e-mail code or a provider
          </Link>
          .
        </p>
      )}
    </>
  );
}

export function Guest({ allowAnonymous }: { allowAnonymous: boolean }) {
  return (
    <>
      <AppHeader />
      <main style={{ maxWidth: "40rem", margin: "2rem auto", padding: "0 1rem" }}>
        <h1>Try it as a guest</h1>
        {allowAnonymous ? (
          <GuestNotes />
        ) : (
          <p data-testid="guest-off">
            Guests are off. Start the example with <code>AUTHMW_ALLOW_ANONYMOUS=true</code> (a service answering as API 2.8) to
            try the app before signing up.
          </p>
        )}
      </main>
    </>
  );
}
