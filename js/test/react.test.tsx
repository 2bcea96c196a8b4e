import { act, cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import type { ReactNode } from "react";
import { MemoryRouter, Route, Routes, useLocation } from "react-router";
import { afterEach, describe, expect, it, vi } from "vitest";
import { AuthHandler, AuthProvider, signOutIntentUrl, useAuth, useUser } from "../src/index";
import type { AuthClient } from "../src/client";
import { FLOW_NAMES } from "../src/controller";
import { AuthProviderForTesting } from "../src/testing";
import {
  BASE_URL,
  fakeFetch,
  jsonResponse,
  knownErrorResponse,
  PROJECT_ID,
  testClient,
  tokenValidFor,
  userWire,
} from "./helpers";

afterEach(cleanup);

function WhoAmI() {
  const state = useUser();
  return <p data-testid="who">{state.status === "signed-in" ? state.user.primaryEmail : state.status}</p>;
}

function Where() {
  const location = useLocation();
  return <p data-testid="where">{`${location.pathname}${location.search}`}</p>;
}

const PROJECT = {
  id: PROJECT_ID,
  display_name: "Demo",
  config: { sign_up_enabled: true, credential_enabled: true, magic_link_enabled: false, enabled_oauth_providers: [] },
};

function makeClient(initialTokens?: { refreshToken: string; accessToken?: string }) {
  const f = fakeFetch();
  // The sign-in page reads the project's configuration; that call never takes a queued reply.
  const fetch: typeof globalThis.fetch = (input, init) =>
    String(input) === `${BASE_URL}/api/v1/projects/current`
      ? Promise.resolve(jsonResponse(PROJECT))
      : f.fetch(input, init);
  return { client: testClient(fetch, { initialTokens }), ...f };
}

function renderApp(client: AuthClient, path: string, extra?: ReactNode) {
  return render(
    <MemoryRouter initialEntries={[path]}>
      <AuthProvider projectId={PROJECT_ID} baseUrl={BASE_URL} client={client} redirectMethod="router">
        <Routes>
          <Route path="/handler/*" element={<AuthHandler />} />
          <Route path="*" element={<WhoAmI />} />
        </Routes>
        <Where />
        {extra}
      </AuthProvider>
    </MemoryRouter>,
  );
}

/** Fills the e-mail and password form (once the project's configuration has loaded) and submits it. */
async function fillAndSubmit(email: string, password: string) {
  fireEvent.change(await screen.findByLabelText("E-mail"), { target: { value: email } });
  fireEvent.change(screen.getByLabelText("Password"), { target: { value: password } });
  fireEvent.submit(screen.getByLabelText("E-mail").closest("form")!);
}

/** The text of the inline message under a field. */
const fieldMessage = (label: string) => {
  const ids = screen.getByLabelText(label).getAttribute("aria-describedby") ?? "";
  return ids
    .split(" ")
    .map((id) => document.getElementById(id)?.textContent ?? "")
    .join(" ")
    .trim();
};

describe("hooks", () => {
  it("throw a clear error outside the provider", () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    expect(() => render(<WhoAmI />)).toThrow("useUser() must be called inside <AuthProvider>");
    function UsesAuth() {
      useAuth();
      return null;
    }
    expect(() => render(<UsesAuth />)).toThrow("useAuth() must be called inside <AuthProvider>");
    vi.mocked(console.error).mockRestore();
  });

  it("AuthProviderForTesting renders a fixed user, or signed out", () => {
    render(
      <AuthProviderForTesting user={{ primaryEmail: "grace@example.com" }}>
        <WhoAmI />
      </AuthProviderForTesting>,
    );
    expect(screen.getByTestId("who").textContent).toBe("grace@example.com");
    cleanup();
    render(
      <AuthProviderForTesting user={null}>
        <WhoAmI />
      </AuthProviderForTesting>,
    );
    expect(screen.getByTestId("who").textContent).toBe("signed-out");
  });

  it("useAuth with a selector re-renders only when what it selects changes; its calls keep their identity", async () => {
    let renders = 0;
    let auth!: ReturnType<typeof useAuth>;
    const signOuts = new Set<unknown>();
    function Status() {
      const status = useAuth((a) => a.status);
      renders += 1;
      return <p data-testid="status">{status}</p>;
    }
    function Grab() {
      auth = useAuth();
      signOuts.add(auth.signOut);
      return null;
    }
    render(
      <AuthProviderForTesting user={{}} accessToken="at">
        <Status />
        <Grab />
      </AuthProviderForTesting>,
    );
    await waitFor(() => expect(screen.getByTestId("status").textContent).toBe("signed-in"));
    const settled = renders;
    await act(() => auth.updateUser({ displayName: "Ada" })); // the user changes, the status does not
    expect(auth.user?.displayName).toBe("Ada");
    expect(renders).toBe(settled);
    await act(() => auth.signOut());
    expect(screen.getByTestId("status").textContent).toBe("signed-out");
    expect(renders).toBe(settled + 1);
    expect(signOuts.size).toBe(1); // one bound function for the provider's lifetime
  });

  it("useAuth's selector may compare with its own equality", async () => {
    let renders = 0;
    let auth!: ReturnType<typeof useAuth>;
    function Name() {
      const names = useAuth(
        (a) => [a.user?.displayName ?? null],
        (x, y) => x[0] === y[0],
      );
      renders += 1;
      return <p data-testid="name">{String(names[0])}</p>;
    }
    function Grab() {
      auth = useAuth();
      return null;
    }
    render(
      <AuthProviderForTesting user={{ displayName: "Ada" }} accessToken="at">
        <Name />
        <Grab />
      </AuthProviderForTesting>,
    );
    await waitFor(() => expect(screen.getByTestId("name").textContent).toBe("Ada"));
    const settled = renders;
    await act(() => auth.updateUser({ clientMetadata: { theme: "dark" } })); // a new array, the same name
    expect(renders).toBe(settled);
    await act(() => auth.updateUser({ displayName: "Grace" }));
    expect(screen.getByTestId("name").textContent).toBe("Grace");
  });

  it("useAuth exposes getAuthHeaders and signOut", async () => {
    let auth!: ReturnType<typeof useAuth>;
    function Grab() {
      auth = useAuth();
      return null;
    }
    render(
      <AuthProviderForTesting user={{}} accessToken="at">
        <Grab />
        <WhoAmI />
      </AuthProviderForTesting>,
    );
    expect(await auth.getAuthHeaders()).toEqual({
      "x-stack-auth": JSON.stringify({ accessToken: "at", refreshToken: "test-refresh-token" }),
    });
    await act(() => auth.updateUser({ displayName: "Ada" }));
    expect(auth.user?.displayName).toBe("Ada");
    await act(() => auth.signOut());
    expect(screen.getByTestId("who").textContent).toBe("signed-out");
  });

  it("useAuth hands out every flow under its name and the members HANDED_OUT names, bound to the client", async () => {
    const { client, reply, calls } = makeClient();
    let auth!: ReturnType<typeof useAuth>;
    function Grab() {
      auth = useAuth();
      return null;
    }
    renderApp(client, "/", <Grab />);
    await waitFor(() => expect(screen.getByTestId("who").textContent).toBe("signed-out"));
    for (const name of FLOW_NAMES) expect(typeof auth[name], name).toBe("function");
    expect(auth.signIn).toBe(auth.signInWithCredential);
    expect(auth.teams).toBe(client.teams);
    expect(auth.urls).toBe(client.urls);
    expect("getUserState" in auth || "caches" in auth).toBe(false);
    // A flow called through useAuth reaches the client (flows.ts is loaded on this first call).
    reply(jsonResponse({ success: true }));
    await auth.sendForgotPasswordEmail("ada@example.com");
    expect(calls.at(-1)).toMatchObject({ method: "POST", url: `${BASE_URL}/api/v1/auth/password/send-reset-code` });
  });

  it("the real provider loads the user of the session", async () => {
    const { client, reply } = makeClient({ refreshToken: "rt", accessToken: tokenValidFor(600) });
    reply(jsonResponse(userWire({ primary_email: "ada@example.com" })));
    renderApp(client, "/");
    expect(screen.getByTestId("who").textContent).toBe("loading");
    await waitFor(() => expect(screen.getByTestId("who").textContent).toBe("ada@example.com"));
  });
});

describe("sign-in page", () => {
  it("has labelled inputs named email and password and a link to sign-up that keeps after_auth_return_to", async () => {
    const { client } = makeClient();
    renderApp(client, "/handler/sign-in?after_auth_return_to=%2Forders");
    expect(screen.getByRole("heading", { name: "Sign in" })).toBeTruthy();
    expect((await screen.findByLabelText("E-mail")).getAttribute("name")).toBe("email");
    expect(screen.getByLabelText("Password").getAttribute("name")).toBe("password");
    expect(screen.getByRole("link", { name: "Create an account" }).getAttribute("href")).toBe(
      "/handler/sign-up?after_auth_return_to=%2Forders",
    );
  });

  it("shows 'Wrong e-mail or password.' and then signs in and returns to after_auth_return_to", async () => {
    const { client, reply } = makeClient();
    renderApp(client, "/handler/sign-in?after_auth_return_to=%2Forders%3Fp%3D1");
    reply(knownErrorResponse("EMAIL_PASSWORD_MISMATCH", 400, "Wrong e-mail or password."));
    await fillAndSubmit("ada@example.com", "nope");
    const alert = await screen.findByRole("alert");
    expect(alert.textContent).toBe("Wrong e-mail or password.");
    expect(screen.getByLabelText("Password").getAttribute("aria-describedby")).toBe(alert.id);
    expect(screen.getByLabelText("E-mail").getAttribute("aria-invalid")).toBe("true");

    reply(
      jsonResponse({ access_token: tokenValidFor(600), refresh_token: "rt", user_id: "u" }),
      jsonResponse(userWire({ primary_email: "ada@example.com" })),
    );
    await fillAndSubmit("ada@example.com", "right");
    await waitFor(() => expect(screen.getByTestId("where").textContent).toBe("/orders?p=1"));
    expect(screen.getByTestId("who").textContent).toBe("ada@example.com");
  });

  it("ignores an absolute after_auth_return_to and goes to the after-sign-in URL", async () => {
    vi.spyOn(console, "warn").mockImplementation(() => {});
    const { client, reply } = makeClient();
    renderApp(client, "/handler/sign-in?after_auth_return_to=https%3A%2F%2Fevil.example%2F");
    expect((await screen.findByRole("link", { name: "Create an account" })).getAttribute("href")).toBe("/handler/sign-up");
    reply(jsonResponse({ access_token: tokenValidFor(600), refresh_token: "rt", user_id: "u" }), jsonResponse(userWire()));
    await fillAndSubmit("ada@example.com", "right");
    await waitFor(() => expect(screen.getByTestId("where").textContent).toBe("/"));
    expect(console.warn).toHaveBeenCalled();
    vi.mocked(console.warn).mockRestore();
  });
});

describe("sign-up page", () => {
  it.each([
    ["USER_EMAIL_ALREADY_EXISTS", 409, undefined, "E-mail", "An account with this e-mail address already exists. Sign in instead."],
    ["PASSWORD_TOO_SHORT", 400, { min_length: 8 }, "Password", "The password is too short: use at least 8 characters."],
    ["PASSWORD_TOO_LONG", 400, { maxLength: 64 }, "Password", "The password is too long: use at most 64 characters."],
  ])("shows the message for %s under the field it is about, and focuses it", async (code, status, details, label, message) => {
    const { client, reply } = makeClient();
    renderApp(client, "/handler/sign-up");
    reply(knownErrorResponse(code, status, "server text", details));
    await fillAndSubmit("ada@example.com", "pw");
    await waitFor(() => expect(fieldMessage(label)).toBe(message));
    expect(screen.getByLabelText(label).getAttribute("aria-invalid")).toBe("true");
    await waitFor(() => expect(document.activeElement).toBe(screen.getByLabelText(label)));
  });

  it("shows the message for SIGN_UP_NOT_ENABLED", async () => {
    const { client, reply } = makeClient();
    renderApp(client, "/handler/sign-up");
    reply(knownErrorResponse("SIGN_UP_NOT_ENABLED", 400));
    await fillAndSubmit("ada@example.com", "pw");
    expect((await screen.findByRole("alert")).textContent).toBe("This project is not taking new sign-ups.");
  });

  it("signs up and goes to the after-sign-up URL, linking back to sign-in", async () => {
    const { client, reply, calls } = makeClient();
    renderApp(client, "/handler/sign-up?after_auth_return_to=%2Fwelcome");
    expect((await screen.findByRole("link", { name: "Sign in" })).getAttribute("href")).toBe(
      "/handler/sign-in?after_auth_return_to=%2Fwelcome",
    );
    reply(jsonResponse({ access_token: tokenValidFor(600), refresh_token: "rt", user_id: "u" }), jsonResponse(userWire()));
    await fillAndSubmit("ada@example.com", "password1");
    await waitFor(() => expect(screen.getByTestId("where").textContent).toBe("/welcome"));
    expect(JSON.parse(calls[0]!.body!).verification_callback_url).toBe(
      `${window.location.origin}/handler/email-verification?after_auth_return_to=%2Fwelcome`,
    );
  });
});

describe("email verification page", () => {
  it("consumes the code once and says so", async () => {
    const { client, reply, calls } = makeClient();
    reply(jsonResponse({ success: true }));
    renderApp(client, `/handler/email-verification?code=${"a".repeat(45)}`);
    fireEvent.click(await screen.findByRole("button", { name: "Verify" }));
    expect((await screen.findByText("Your e-mail address is verified.")).getAttribute("role")).toBe("status");
    expect(calls).toHaveLength(1);
    expect(calls[0]!.url).toBe(`${BASE_URL}/api/v1/contact-channels/verify`);
    expect(JSON.parse(calls[0]!.body!)).toEqual({ code: "a".repeat(45) });
  });

  it.each([
    ["VERIFICATION_CODE_EXPIRED", 400, "This verification link has expired. Request a new one."],
    ["VERIFICATION_CODE_ALREADY_USED", 409, "This verification link has already been used."],
    ["VERIFICATION_CODE_NOT_FOUND", 404, "This verification link is not valid."],
  ])("explains %s", async (code, status, message) => {
    const { client, reply } = makeClient();
    reply(knownErrorResponse(code, status));
    renderApp(client, `/handler/email-verification?code=${"b".repeat(45)}`);
    fireEvent.click(await screen.findByRole("button", { name: "Verify" }));
    expect((await screen.findByRole("alert")).textContent).toBe(message);
  });

  it("says so when the link has no code", () => {
    const { client, calls } = makeClient();
    renderApp(client, "/handler/email-verification");
    expect(screen.getByRole("alert").textContent).toContain("no code");
    expect(calls).toHaveLength(0);
  });
});

describe("sign-out page and fallback", () => {
  it("signs out and goes to the after-sign-out URL when reached through the app's own link", async () => {
    const { client, reply, calls } = makeClient({ refreshToken: "rt", accessToken: tokenValidFor(600) });
    reply(jsonResponse(userWire()), jsonResponse({ success: true }));
    renderApp(client, signOutIntentUrl("/handler/sign-out"));
    await waitFor(() => expect(screen.getByTestId("where").textContent).toBe("/"));
    expect(calls.some((c) => c.method === "DELETE" && c.url.endsWith("/auth/sessions/current"))).toBe(true);
    expect(client.session.getState().refreshToken).toBeNull();
    await waitFor(() => expect(screen.getByTestId("who").textContent).toBe("signed-out"));
  });

  it("leaves with a full page load by default, so server-rendered pages see the new session", async () => {
    const { client, reply } = makeClient({ refreshToken: "rt", accessToken: tokenValidFor(600) });
    reply(jsonResponse(userWire()), jsonResponse({ success: true }));
    const replace = vi.fn();
    const original = window.location;
    Object.defineProperty(window, "location", { configurable: true, value: { ...original, replace } });
    try {
      render(
        <MemoryRouter initialEntries={[signOutIntentUrl("/handler/sign-out")]}>
          <AuthProvider projectId={PROJECT_ID} baseUrl={BASE_URL} client={client}>
            <Routes>
              <Route path="/handler/*" element={<AuthHandler />} />
            </Routes>
          </AuthProvider>
        </MemoryRouter>,
      );
      // The URL as the browser parsed it, which is what the redirect decided on.
      await waitFor(() => expect(replace).toHaveBeenCalledWith(`${original.origin}/`));
    } finally {
      Object.defineProperty(window, "location", { configurable: true, value: original });
    }
  });

  it("renders a not-found page for other handler paths", () => {
    const { client } = makeClient();
    renderApp(client, "/handler/nope");
    expect(screen.getByRole("heading", { name: "Page not found" })).toBeTruthy();
  });

  it("renders the page's own sentence for the error's code, not the URL's message (a failed OAuth sign-in: on the sign-in page)", async () => {
    const { client } = makeClient();
    renderApp(client, "/handler/error?errorCode=OUTER_OAUTH_TIMEOUT&message=Timed%20out");
    await waitFor(() => expect(screen.getByRole("alert").textContent).toBe("The sign-in took too long. Please sign in again."));
    expect(document.querySelector(".authmw-page")!.textContent).not.toMatch(/Timed out|OUTER_OAUTH_TIMEOUT/);
  });
});
