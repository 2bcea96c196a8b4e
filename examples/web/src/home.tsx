import { useEffect, useState } from "react";
import { Link } from "react-router";
import { Protect, SignedIn, SignOutLink, useAuth, useUser } from "@authmw/react";
import { AppHeader } from "./header";

type ApiResult = { status: "loading" } | { status: number; body: unknown } | { status: "error"; message: string };

/** GET /api/me on the example's own back end, which reads the session from the cookies. */
function useApiMe(key: string): ApiResult {
  const [result, setResult] = useState<ApiResult>({ status: "loading" });
  useEffect(() => {
    let live = true;
    setResult({ status: "loading" });
    fetch("/api/me", { headers: { accept: "application/json" } })
      .then(async (res) => {
        const text = await res.text();
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch {
          // keep the text
        }
        if (live) setResult({ status: res.status, body });
      })
      .catch((error: unknown) => live && setResult({ status: "error", message: String(error) }));
    return () => {
      live = false;
    };
  }, [key]);
  return result;
}

export function Home() {
  const user = useUser();
  const { urls } = useAuth();
  const api = useApiMe(user.status === "signed-in" ? `in:${user.user.id}` : user.status);

  return (
    <>
      <AppHeader />
      <main style={{ maxWidth: "40rem", margin: "2rem auto", padding: "0 1rem" }}>
        <h1>authmw example</h1>
        <section aria-labelledby="user-heading">
          <h2 id="user-heading">Browser session</h2>
          <p data-testid="user-status" data-status={user.status} data-anonymous={String(user.user?.isAnonymous === true)}>
            {user.status === "loading" && "Loading…"}
            {user.status === "signed-out" && "You are signed out."}
            {user.status === "signed-in" && (
              <>
                Signed in as <strong data-testid="user-email">{user.user.isAnonymous ? "an anonymous user" : user.user.primaryEmail}</strong>{" "}
                (<span data-testid="user-id">{user.user.id}</span>)
              </>
            )}
          </p>
          <nav>
            {user.status === "signed-in" ? (
              <>
                <Link to={urls.accountSettings} data-testid="account-settings-link">
                  Account settings
                </Link>{" "}
                · <Link to="/protected">Members-only page</Link> ·{" "}
                <SignOutLink data-testid="sign-out-link">Sign out</SignOutLink>
              </>
            ) : (
              <>
                <Link to={urls.signIn} data-testid="sign-in-link">
                  Sign in
                </Link>{" "}
                ·{" "}
                <Link to={urls.signUp} data-testid="sign-up-link">
                  Sign up
                </Link>{" "}
                · <Link to="/protected">Members-only page</Link>
              </>
            )}
          </nav>
        </section>
        <SignedIn>
          <section aria-labelledby="team-heading">
            <h2 id="team-heading">Selected team</h2>
            <Protect
              permission="$update_team"
              loading={<p>Checking your permissions…</p>}
              fallback={<p data-testid="team-admin-denied">Only the admins of a selected team see its settings here.</p>}
            >
              <p data-testid="team-admin">You may change the settings of this team.</p>
            </Protect>
          </section>
          <section aria-labelledby="reports-heading">
            <h2 id="reports-heading">Reports</h2>
            {/* A project permission (API 2.8): granted to a user by the server tier, in no team. */}
            <Protect
              permission="view_reports"
              project
              loading={<p>Checking your permissions…</p>}
              fallback={<p data-testid="reports-denied">Ask an administrator for the view_reports permission to see the reports.</p>}
            >
              <p data-testid="reports">You may see the reports.</p>
            </Protect>
          </section>
        </SignedIn>
        <section aria-labelledby="api-heading">
          <h2 id="api-heading">GET /api/me (server side)</h2>
          <pre data-testid="api-me" data-status={String(api.status)}>
            {api.status === "loading"
              ? "Loading…"
              : api.status === "error"
                ? `Request failed: ${api.message}`
                : `${api.status} ${JSON.stringify(api.body, null, 2)}`}
          </pre>
        </section>
      </main>
    </>
  );
}
