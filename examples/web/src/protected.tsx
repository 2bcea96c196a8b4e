import { Link } from "react-router";
import { useUser } from "@authmw/react";
import { AppHeader } from "./header";

/**
 * A page only for signed-in users: `useUser({ or: "redirect" })` sends a signed-out visitor to
 * sign-in, which brings them back here (query and hash kept). Only the page is hidden: the data
 * behind it must be checked by the back end (the example's /api/me reads the session itself).
 */
export function Protected() {
  const state = useUser({ or: "redirect" });
  return (
    <>
      <AppHeader />
      <main style={{ maxWidth: "40rem", margin: "2rem auto", padding: "0 1rem" }}>
        <h1>Members only</h1>
        {state.status === "loading" ? (
          <p role="status">Loading…</p>
        ) : (
          <p data-testid="protected-content">
            Welcome, <strong data-testid="protected-email">{state.user.displayName ?? state.user.primaryEmail}</strong>. Only
            signed-in users see this page.
          </p>
        )}
        <Link to="/">Home</Link>
      </main>
    </>
  );
}
