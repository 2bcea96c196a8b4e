// Every redirect of the package goes through leave (return-to.ts): the app's navigation for a
// URL that the browser would read as a path of the page's own origin, a page load for anything
// else. First the decision itself over a stand-in location (pure code), then the places that
// send a signed-out user to sign-in, with real AuthClients (no session, so no request) in jsdom.
import { cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { useEffect, useState } from "react";
import { BrowserRouter, MemoryRouter, Route, Routes, useLocation } from "react-router";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { AuthHandler, AuthProvider, RedirectToSignIn, SignInButton, useAuth, useUser, type Navigate, type RedirectMethod } from "../src/index";
import { leave, redirectToSignIn } from "../src/return-to";
import type { AuthClientOptions } from "../src/client";
import { BASE_URL, clientWith, PROJECT_ID } from "./helpers";

/** A stand-in for window.location at `href`, recording the page loads asked of it. */
function pageAt(href: string) {
  const replace = vi.fn<(url: string) => void>();
  const assign = vi.fn<(url: string) => void>();
  const page = { href, origin: new URL(href).origin, replace, assign } as unknown as Location;
  return { page, replace, assign };
}

const APP = "http://app.example:8080/shop/cart?step=2#total";

/**
 * Stands in for window.location in the tests of a describe block (jsdom loads no page): they
 * read the page loads from the stand-in's `replace` and `assign`, the real location as `original`.
 */
function locationStandIn() {
  const page = { replace: vi.fn<(url: string) => void>(), assign: vi.fn<(url: string) => void>(), original: window.location };
  beforeEach(() => {
    page.original = window.location;
    page.replace = vi.fn();
    page.assign = vi.fn();
    Object.defineProperty(window, "location", { configurable: true, value: { ...page.original, replace: page.replace, assign: page.assign } });
  });
  afterEach(() => Object.defineProperty(window, "location", { configurable: true, value: page.original }));
  return page;
}

describe("leave: the app's navigation only for a path of the page's own origin", () => {
  it("hands a same-origin URL's path, query and hash to the navigation, replacing by default", () => {
    const { page, replace, assign } = pageAt(APP);
    const navigate = vi.fn<Navigate>();
    leave("/handler/sign-in?after_auth_return_to=%2Fshop%2Fcart%3Fstep%3D2%23total", navigate, true, page);
    expect(navigate).toHaveBeenCalledExactlyOnceWith("/handler/sign-in?after_auth_return_to=%2Fshop%2Fcart%3Fstep%3D2%23total", {
      replace: true,
    });
    leave("http://app.example:8080/handler/sign-in#top", navigate, false, page);
    expect(navigate).toHaveBeenLastCalledWith("/handler/sign-in#top", { replace: false });
    // Relative to the page, dot segments resolved, backslashes read as slashes: as the browser would.
    leave("../account\\settings?tab=1", navigate, true, page);
    expect(navigate).toHaveBeenLastCalledWith("/account/settings?tab=1", { replace: true });
    expect(replace).not.toHaveBeenCalled();
    expect(assign).not.toHaveBeenCalled();
  });

  it("loads a page on another origin (a hosted sign-in page), with replace or assign", () => {
    const { page, replace, assign } = pageAt(APP);
    const navigate = vi.fn<Navigate>();
    leave("https://auth.example.com/handler/sign-in?after_auth_return_to=%2Fshop", navigate, true, page);
    expect(replace).toHaveBeenCalledExactlyOnceWith("https://auth.example.com/handler/sign-in?after_auth_return_to=%2Fshop");
    // The same host on another port or scheme is another origin too.
    leave("http://app.example:9090/handler/sign-in", navigate, false, page);
    expect(assign).toHaveBeenCalledExactlyOnceWith("http://app.example:9090/handler/sign-in");
    leave("https://app.example:8080/handler/sign-in", navigate, true, page);
    expect(replace).toHaveBeenLastCalledWith("https://app.example:8080/handler/sign-in");
    expect(navigate).not.toHaveBeenCalled();
  });

  it("loads the page without a navigation (redirectMethod window), replacing by default", () => {
    const { page, replace, assign } = pageAt(APP);
    leave("/handler/sign-in?after_auth_return_to=%2F", undefined, undefined, page);
    expect(replace).toHaveBeenCalledExactlyOnceWith("http://app.example:8080/handler/sign-in?after_auth_return_to=%2F");
    leave("/handler/sign-in", undefined, false, page);
    expect(assign).toHaveBeenCalledExactlyOnceWith("http://app.example:8080/handler/sign-in");
  });

  // What looks like a path but a browser reads as another host or scheme: never the router's.
  // The page load gets the browser's own reading of the URL, so it goes nowhere the URL itself
  // would not; the return path inside is judged by toRelativeUrl (test/urls.test.ts).
  it.each([
    ["//evil.example/handler/sign-in"],
    ["\\\\evil.example/handler/sign-in"],
    ["/\\evil.example/handler/sign-in"],
    ["\\/evil.example"],
    ["/\t/evil.example"],
    ["/\n/evil.example"],
    ["  //evil.example"],
    ["https:evil.example"],
    ["https:\\\\evil.example"],
    ["HTTPS://evil.example"],
    ["http://evil.example\\@app.example:8080/"],
    ["http://app.example:8080@evil.example/"],
    ["javascript:alert(document.domain)"],
    ["java\tscript:alert(1)"],
    ["data:text/html,<script>alert(1)</script>"],
  ])("%j is a page load, never handed to the navigation", (url) => {
    const { page, replace } = pageAt(APP);
    const navigate = vi.fn<Navigate>();
    leave(url, navigate, true, page);
    expect(navigate).not.toHaveBeenCalled();
    expect(replace).toHaveBeenCalledExactlyOnceWith(new URL(url, APP).href);
  });

  it("a path the browser would resolve to //host stays a page load of the same origin (a router would read a host)", () => {
    const { page, replace } = pageAt(APP);
    const navigate = vi.fn<Navigate>();
    for (const url of ["/.//evil.example", "/x/..//evil.example", "/%2e//evil.example"]) leave(url, navigate, true, page);
    expect(navigate).not.toHaveBeenCalled();
    expect(replace.mock.calls.map(([url]) => url)).toEqual(Array(3).fill("http://app.example:8080//evil.example"));
  });

  it("on an https page, https:x is a path of the page, as the browser reads it (the control of https:evil.example)", () => {
    const { page, replace } = pageAt("https://app.example/shop/cart");
    const navigate = vi.fn<Navigate>();
    leave("https:evil.example", navigate, true, page);
    expect(navigate).toHaveBeenCalledExactlyOnceWith("/shop/evil.example", { replace: true });
    expect(replace).not.toHaveBeenCalled();
  });

  it("never uses the navigation on a page of an opaque origin (every such URL's origin is 'null')", () => {
    const { page, replace } = pageAt("capacitor://localhost/shop");
    expect(page.origin).toBe("null");
    const navigate = vi.fn<Navigate>();
    leave("javascript:alert(1)", navigate, true, page);
    leave("/handler/sign-in", navigate, true, page);
    expect(navigate).not.toHaveBeenCalled();
    expect(replace.mock.calls.map(([url]) => url)).toEqual(["javascript:alert(1)", "capacitor://localhost/handler/sign-in"]);
  });

  it("over generated URLs: the navigation gets only a path that stays on whatever origin reads it, and goes where the browser would", () => {
    const starts = ["", "/", "//", "\\", "/\\", "\\/", "\t/", "/\t/", " /", "/./", "/.//", "/%2e/", "/..//", "./", "../", "?", "#"];
    const middles = ["", "http:", "https:", "HTTP:", "http://", "https:\\\\", "javascript:", "app.example:8080", "app.example:8080@", "evil.example", "evil.example\\@", "@"];
    const ends = ["", "evil.example", "/x?y=1#z", "\\x", "@evil.example/", ":8080/x", "%2f%2fevil.example"];
    let routed = 0;
    let loaded = 0;
    for (const base of [APP, "https://app.example/shop/cart"]) {
      for (const start of starts)
        for (const middle of middles)
          for (const end of ends) {
            const url = start + middle + end;
            let expected: URL;
            try {
              expected = new URL(url, base);
            } catch {
              continue; // the browser would not go anywhere either
            }
            const { page, replace } = pageAt(base);
            const navigate = vi.fn<Navigate>();
            leave(url, navigate, true, page);
            if (navigate.mock.calls.length) {
              routed++;
              const path = navigate.mock.calls[0]![0];
              expect(expected.origin, url).toBe(page.origin);
              expect(path.startsWith("/") && !path.startsWith("//"), url).toBe(true);
              expect(new URL(path, "https://elsewhere.invalid/a/b").origin, url).toBe("https://elsewhere.invalid");
              // (an empty query or fragment, `?` or `#` alone, is dropped: the same page to a router)
              const read = new URL(path, base);
              expect(read.origin + read.pathname + read.search + read.hash, url).toBe(expected.origin + expected.pathname + expected.search + expected.hash);
              expect(replace).not.toHaveBeenCalled();
            } else {
              loaded++;
              expect(replace, url).toHaveBeenCalledExactlyOnceWith(expected.href);
              expect(expected.origin !== page.origin || expected.pathname.startsWith("//"), url).toBe(true);
            }
          }
    }
    // Both answers occur often enough for the checks above to mean something.
    expect(routed).toBeGreaterThan(500);
    expect(loaded).toBeGreaterThan(500);
  });
});

/** The current page of the router, as a test id. */
function Where() {
  const { pathname, search, hash } = useLocation();
  return <p data-testid="where">{pathname + search + hash}</p>;
}

function Protected() {
  const state = useUser({ or: "redirect" });
  return <p>{state.status === "loading" ? "loading" : "members only"}</p>;
}

const SIGN_IN_BACK_HERE = `/handler/sign-in?after_auth_return_to=${encodeURIComponent("/protected?tab=2#notes")}`;

function App({ redirectMethod, signIn }: { redirectMethod?: RedirectMethod; signIn?: string }) {
  const [{ client }] = useState(() => clientWith({ urls: signIn ? { signIn } : {} }));
  return (
    <AuthProvider projectId={PROJECT_ID} baseUrl={BASE_URL} client={client} redirectMethod={redirectMethod}>
      <Routes>
        <Route path="/protected" element={<Protected />} />
        <Route path="/handler/sign-in" element={<p>sign-in page</p>} />
      </Routes>
      <Where />
    </AuthProvider>
  );
}

describe("the sign-in redirects follow the provider's redirectMethod", () => {
  beforeEach(() => window.history.replaceState(null, "", "/protected?tab=2#notes"));
  afterEach(() => {
    cleanup();
    window.history.replaceState(null, "", "/");
  });

  it('useUser({ or: "redirect" }) with redirectMethod="router": a react-router navigation to sign-in, coming back here', async () => {
    const entries = window.history.length;
    render(
      <BrowserRouter>
        <App redirectMethod="router" />
      </BrowserRouter>,
    );
    expect(await screen.findByText("sign-in page")).toBeTruthy();
    // jsdom cannot load pages: the address changed through the history API, i.e. the router.
    expect(window.location.pathname + window.location.search).toBe(SIGN_IN_BACK_HERE);
    expect(new URLSearchParams(window.location.search).get("after_auth_return_to")).toBe("/protected?tab=2#notes");
    // replaced: Back does not return to the page that would send the visitor away again
    expect(window.history.length).toBe(entries);
  });

  it("redirectMethod { navigate }: the app's own navigation gets the path, replacing", async () => {
    const navigate = vi.fn<Navigate>();
    render(
      <MemoryRouter initialEntries={["/protected?tab=2#notes"]}>
        <App redirectMethod={{ navigate }} />
      </MemoryRouter>,
    );
    await waitFor(() => expect(navigate).toHaveBeenCalledExactlyOnceWith(SIGN_IN_BACK_HERE, { replace: true }));
  });

  describe("page loads (location stood in for, as jsdom loads no page)", () => {
    const page = locationStandIn();

    it("a sign-in page on another origin is loaded even with a router navigation", async () => {
      const navigate = vi.fn<Navigate>();
      render(
        <MemoryRouter initialEntries={["/protected?tab=2#notes"]}>
          <App redirectMethod={{ navigate }} signIn="https://auth.example.com/handler/sign-in" />
        </MemoryRouter>,
      );
      await waitFor(() => expect(page.replace).toHaveBeenCalledExactlyOnceWith(`https://auth.example.com${SIGN_IN_BACK_HERE}`));
      expect(navigate).not.toHaveBeenCalled();
    });

    it('without a navigation (redirectMethod "window", the default) the sign-in page is loaded', async () => {
      render(
        <MemoryRouter initialEntries={["/protected?tab=2#notes"]}>
          <App />
        </MemoryRouter>,
      );
      await waitFor(() => expect(page.replace).toHaveBeenCalledExactlyOnceWith(`${page.original.origin}${SIGN_IN_BACK_HERE}`));
      expect(screen.getByTestId("where").textContent).toBe("/protected?tab=2#notes");
    });

    it('"router" outside a router is a page load too (there is no router to ask)', async () => {
      const { client } = clientWith();
      render(
        <AuthProvider projectId={PROJECT_ID} baseUrl={BASE_URL} client={client} redirectMethod="router">
          <RedirectToSignIn />
        </AuthProvider>,
      );
      await waitFor(() => expect(page.replace).toHaveBeenCalledExactlyOnceWith(`${page.original.origin}${SIGN_IN_BACK_HERE}`));
    });

    it("the standalone redirectToSignIn: a page load adding to the history, or the given navigation", () => {
      redirectToSignIn();
      expect(page.assign).toHaveBeenCalledExactlyOnceWith(`${page.original.origin}${SIGN_IN_BACK_HERE}`);
      const navigate = vi.fn<Navigate>();
      redirectToSignIn({ navigate, handlerPath: "/auth" });
      expect(navigate).toHaveBeenCalledExactlyOnceWith(`/auth/sign-in?after_auth_return_to=${encodeURIComponent("/protected?tab=2#notes")}`, {
        replace: false,
      });
      redirectToSignIn({ navigate, signInUrl: "https://auth.example.com/in" });
      expect(page.assign).toHaveBeenLastCalledWith(`https://auth.example.com/in?after_auth_return_to=${encodeURIComponent("/protected?tab=2#notes")}`);
      expect(navigate).toHaveBeenCalledTimes(1);
      expect(page.replace).not.toHaveBeenCalled();
    });
  });

  it("<RedirectToSignIn> and useAuth().redirectToSignIn() take the same route; the latter adds to the history", async () => {
    const navigate = vi.fn<Navigate>();
    function Button() {
      const { redirectToSignIn } = useAuth();
      useEffect(() => redirectToSignIn(), [redirectToSignIn]);
      return null;
    }
    const { client } = clientWith();
    render(
      <AuthProvider projectId={PROJECT_ID} baseUrl={BASE_URL} client={client} redirectMethod={{ navigate }}>
        <RedirectToSignIn />
        <Button />
      </AuthProvider>,
    );
    await waitFor(() => expect(navigate).toHaveBeenCalledTimes(2));
    expect(navigate).toHaveBeenCalledWith(SIGN_IN_BACK_HERE, { replace: true });
    expect(navigate).toHaveBeenCalledWith(SIGN_IN_BACK_HERE, { replace: false });
  });
});

/** `navigate` as a navigation that adds `basename` to the paths it gets (as react-router's does). */
const under = <T extends Navigate>(basename: string, navigate: T) => Object.assign(navigate, { basename });

describe("leave under a router's basename: URLs are what the browser ends up at", () => {
  it("hands the router the path without its basename, with or without a trailing slash", () => {
    for (const basename of ["/app", "/app/"]) {
      const { page, replace } = pageAt("http://app.example:8080/app/protected");
      const navigate = under(basename, vi.fn<Navigate>());
      leave("/app/handler/sign-in?after_auth_return_to=%2Fapp%2Fprotected#top", navigate, true, page);
      leave("http://app.example:8080/app", navigate, false, page);
      leave("/app/", navigate, false, page);
      expect(navigate.mock.calls).toEqual([
        ["/handler/sign-in?after_auth_return_to=%2Fapp%2Fprotected#top", { replace: true }],
        ["/", { replace: false }],
        ["/", { replace: false }],
      ]);
      expect(replace).not.toHaveBeenCalled();
    }
  });

  it("loads a page outside the basename (the router could not show it at that URL), or one it would read as a host", () => {
    const { page, replace } = pageAt("http://app.example:8080/app/protected");
    const navigate = under("/app", vi.fn<Navigate>());
    for (const url of ["/handler/sign-in", "/apple/x", "/App/handler/sign-in", "/app//evil.example", "/app/.//evil.example", "https://auth.example.com/app/x"])
      leave(url, navigate, true, page);
    expect(navigate).not.toHaveBeenCalled();
    expect(replace.mock.calls.map(([url]) => url)).toEqual([
      "http://app.example:8080/handler/sign-in",
      "http://app.example:8080/apple/x",
      "http://app.example:8080/App/handler/sign-in",
      "http://app.example:8080/app//evil.example",
      "http://app.example:8080/app//evil.example",
      "https://auth.example.com/app/x",
    ]);
  });

  it("passes the history entry's state to the navigation only; a page load cannot carry it", () => {
    const { page, replace } = pageAt(APP);
    const navigate = vi.fn<Navigate>();
    leave("/handler/sign-in", navigate, true, page, { authmwError: "X" });
    expect(navigate).toHaveBeenCalledExactlyOnceWith("/handler/sign-in", { replace: true, state: { authmwError: "X" } });
    leave("https://auth.example.com/handler/sign-in", navigate, true, page, { authmwError: "X" });
    expect(replace).toHaveBeenCalledExactlyOnceWith("https://auth.example.com/handler/sign-in");
  });
});

/** The router's location and its state, as test ids. */
function WhereWithState() {
  const { pathname, search, hash, state } = useLocation();
  return (
    <>
      <p data-testid="at">{pathname + search + hash}</p>
      <p data-testid="state">{JSON.stringify(state)}</p>
    </>
  );
}

/** The handler pages and an app page under `<BrowserRouter basename>` (none: "/"), at window.location. */
function HandlerApp({ basename, options, redirectMethod = "router" }: { basename?: string; options: Partial<AuthClientOptions>; redirectMethod?: RedirectMethod }) {
  const [{ client }] = useState(() => clientWith(options));
  return (
    <BrowserRouter basename={basename}>
      <AuthProvider projectId={PROJECT_ID} baseUrl={BASE_URL} client={client} redirectMethod={redirectMethod}>
        <Routes>
          <Route path="/handler/*" element={<AuthHandler />} />
          <Route path="/protected" element={<Protected />} />
          <Route path="/buttons" element={<SignInButton />} />
        </Routes>
        <WhereWithState />
      </AuthProvider>
    </BrowserRouter>
  );
}

const DENIED = "/handler/error?errorCode=OAUTH_PROVIDER_ACCESS_DENIED";

describe("back to sign-in after a failed sign-in (useBackToSignIn) follows leave's rule", () => {
  afterEach(() => {
    cleanup();
    window.history.replaceState(null, "", "/");
  });

  it("a sign-in page on this origin: the router, the code in the history entry's state (never the URL), no page load", async () => {
    window.history.replaceState(null, "", DENIED);
    const entries = window.history.length;
    render(<HandlerApp options={{}} />);
    expect((await screen.findByRole("alert")).textContent).toBe("The sign-in was denied at the provider. Please try again.");
    expect(screen.getByRole("heading", { level: 1 }).textContent).toBe("Sign in");
    expect(window.location.pathname + window.location.search).toBe("/handler/sign-in");
    expect(window.history.length).toBe(entries);
  });

  describe("page loads (location stood in for)", () => {
    const page = locationStandIn();

    it.each([
      ["https://auth.example.com/handler/sign-in", "https://auth.example.com/handler/sign-in"],
      ["//auth.example.com/handler/sign-in", "http://auth.example.com/handler/sign-in"],
    ])("a sign-in page at %j is a page load there (the code cannot travel: that page shows its usual state)", async (signIn, loaded) => {
      render(
        <MemoryRouter initialEntries={[DENIED]}>
          <AuthProvider projectId={PROJECT_ID} baseUrl={BASE_URL} client={clientWith({ urls: { signIn } }).client} redirectMethod="router">
            <Routes>
              <Route path="/handler/*" element={<AuthHandler />} />
            </Routes>
            <WhereWithState />
          </AuthProvider>
        </MemoryRouter>,
      );
      await waitFor(() => expect(page.replace).toHaveBeenCalledExactlyOnceWith(loaded));
      // the router did not go anywhere (before, it took the URL for a path of this origin)
      expect(screen.getByTestId("at").textContent).toBe(DENIED);
      expect(page.replace.mock.calls[0]![0]).not.toContain("OAUTH_PROVIDER_ACCESS_DENIED");
    });
  });
});

describe('under <BrowserRouter basename="/app">: "router" and "window" end at the same URL, as configured', () => {
  const HANDLER = { handlerPath: "/app/handler" };
  const SIGN_IN = `/app/handler/sign-in?after_auth_return_to=${encodeURIComponent("/app/protected?tab=2#notes")}`;
  beforeEach(() => window.history.replaceState(null, "", "/app/protected?tab=2#notes"));
  afterEach(() => {
    cleanup();
    window.history.replaceState(null, "", "/");
  });

  it('"router": a router navigation to /app/handler/sign-in (not /app/app/...), coming back to /app/protected', async () => {
    render(<HandlerApp basename="/app" options={HANDLER} />);
    expect(await screen.findByRole("heading", { level: 1, name: "Sign in" })).toBeTruthy();
    expect(window.location.pathname + window.location.search).toBe(SIGN_IN);
    expect(screen.getByTestId("at").textContent).toBe(SIGN_IN.slice("/app".length));
  });

  it("back to sign-in after a failed sign-in: /app/handler/sign-in with the code in the state", async () => {
    window.history.replaceState(null, "", `/app${DENIED}`);
    render(<HandlerApp basename="/app" options={HANDLER} />);
    expect((await screen.findByRole("alert")).textContent).toBe("The sign-in was denied at the provider. Please try again.");
    expect(window.location.pathname + window.location.search).toBe("/app/handler/sign-in");
  });

  it("the pages' links and the components' go to the URLs as configured: the router for those under the basename", async () => {
    window.history.replaceState(null, "", "/app/handler/forgot-password");
    render(<HandlerApp basename="/app" options={HANDLER} />);
    const back = await screen.findByRole("link", { name: "Back to sign in" });
    expect(back.getAttribute("href")).toBe("/app/handler/sign-in");
    fireEvent.click(back);
    expect(await screen.findByRole("heading", { level: 1, name: "Sign in" })).toBeTruthy();
    expect(window.location.pathname).toBe("/app/handler/sign-in");
    cleanup();
    window.history.replaceState(null, "", "/app/buttons?x=1");
    render(<HandlerApp basename="/app" options={HANDLER} />);
    expect(screen.getByTestId("sign-in-button").getAttribute("href")).toBe(`/app/handler/sign-in?after_auth_return_to=${encodeURIComponent("/app/buttons?x=1")}`);
    // A URL outside the basename or on another origin: a plain link to it as written (a page load).
    for (const signIn of ["/elsewhere/sign-in", "https://auth.example.com/in"]) {
      cleanup();
      window.history.replaceState(null, "", "/app/handler/forgot-password");
      render(<HandlerApp basename="/app" options={{ ...HANDLER, urls: { signIn } }} />);
      expect((await screen.findByRole("link", { name: "Back to sign in" })).getAttribute("href")).toBe(signIn);
    }
  });

  it("{ navigate } with a basename property (a router that adds its own base path): gets the path without it", async () => {
    const navigate = under("/app", vi.fn<Navigate>());
    const { client } = clientWith(HANDLER);
    render(
      <MemoryRouter initialEntries={["/protected"]}>
        <AuthProvider projectId={PROJECT_ID} baseUrl={BASE_URL} client={client} redirectMethod={{ navigate }}>
          <Routes>
            <Route path="/protected" element={<Protected />} />
          </Routes>
        </AuthProvider>
      </MemoryRouter>,
    );
    await waitFor(() => expect(navigate).toHaveBeenCalledExactlyOnceWith(SIGN_IN.slice("/app".length), { replace: true }));
  });

  describe("page loads (location stood in for)", () => {
    const page = locationStandIn();

    it('"window": a page load of the same URL as "router" ends at', async () => {
      render(<HandlerApp basename="/app" options={HANDLER} redirectMethod="window" />);
      await waitFor(() => expect(page.replace).toHaveBeenCalledExactlyOnceWith(`${page.original.origin}${SIGN_IN}`));
    });

    it('"router" with a sign-in page outside the basename: a page load there (the router could only show it under /app)', async () => {
      render(<HandlerApp basename="/app" options={{ handlerPath: "/handler" }} />);
      await waitFor(() =>
        expect(page.replace).toHaveBeenCalledExactlyOnceWith(`${page.original.origin}/handler/sign-in?after_auth_return_to=${encodeURIComponent("/app/protected?tab=2#notes")}`),
      );
      expect(screen.getByTestId("at").textContent).toBe("/protected?tab=2#notes");
    });
  });
});
