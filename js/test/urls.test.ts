import { describe, expect, it } from "vitest";
import { authPageUrl, toRelativeUrl, trustedReturnTo, UntrustedRedirectError, withReturnTo } from "../src/return-to";
import { resolveUrls } from "../src/urls";

describe("redirect trust (service-api A7.3)", () => {
  it.each([
    ["/dashboard", "/dashboard"],
    ["/a/b?x=1#frag", "/a/b?x=1#frag"],
    ["relative/path", "/relative/path"],
    ["?tab=2", "/?tab=2"],
  ])("accepts relative %s", (url, expected) => {
    expect(toRelativeUrl(url)).toBe(expected);
  });

  it.each([
    "https://evil.example/",
    "http://evil.example/",
    "//evil.example/path",
    "/\\evil.example",
    "javascript:alert(1)",
    "data:text/html,hi",
    "http:/x",
    // dot segments that collapse into a network-path reference (issue 18)
    "/.//evil.example",
    "/./\\evil.example",
    "/a/..//evil.example",
    "/%2e//evil.example",
    "/%2E%2e//evil.example",
    "/\t.//evil.example",
    "\\\\evil.example",
    " //evil.example",
    "/\n/evil.example",
    "java\nscript:alert(1)",
  ])("rejects %s", (url) => {
    expect(() => toRelativeUrl(url)).toThrow(UntrustedRedirectError);
    expect(() => toRelativeUrl(url)).toThrow(`Redirect URL ${url} is not trusted; should be relative.`);
    expect(trustedReturnTo(url)).toBeNull();
  });
});

describe("handler URLs", () => {
  it("has the spec defaults", () => {
    expect(resolveUrls()).toMatchObject({
      home: "/",
      signIn: "/handler/sign-in",
      signUp: "/handler/sign-up",
      signOut: "/handler/sign-out",
      emailVerification: "/handler/email-verification",
      afterSignIn: "/",
      afterSignUp: "/",
      afterSignOut: "/",
    });
  });

  it("chains the after-URLs: after-sign-up defaults to after-sign-in, which defaults to home", () => {
    expect(resolveUrls("/auth/", { home: "/app" })).toMatchObject({ signIn: "/auth/sign-in", afterSignIn: "/app", afterSignUp: "/app", afterSignOut: "/app" });
    expect(resolveUrls("/auth", { afterSignIn: "/welcome" })).toMatchObject({ afterSignUp: "/welcome", afterSignOut: "/" });
  });

  it("sets after_auth_return_to to the current page, or copies it", () => {
    expect(authPageUrl("/handler/sign-in", { pathname: "/orders", search: "?page=2", hash: "#top" })).toBe(
      "/handler/sign-in?after_auth_return_to=%2Forders%3Fpage%3D2%23top",
    );
    expect(
      authPageUrl("/handler/sign-in", { pathname: "/handler/sign-up", search: "?after_auth_return_to=%2Fx", hash: "" }),
    ).toBe("/handler/sign-in?after_auth_return_to=%2Fx");
    expect(withReturnTo("/p?a=1#h", "/r")).toBe("/p?a=1&after_auth_return_to=%2Fr#h");
    expect(withReturnTo("/p", null)).toBe("/p");
  });
});

/** A small seeded generator (mulberry32): the same hostile URLs on every run. */
function seeded(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PIECES = [
  "/", "//", "\\", "/\\", ".", "..", "%2e", "%2E", "%2f", "%5c", "\t", "\n", "\r", " ", "@", ":", "?", "#",
  "evil.example", "app.example", "javascript:", "http:", "https:", "HTTP:", "//evil.example", "user:pw@",
  "xn--n3h", "\u2603", ":443", "%00", "\u0000", "a", "b",
];

describe("no accepted return URL leaves the site (property, Node's WHATWG URL as the browser)", () => {
  it("holds for 20,000 generated hostile URLs", () => {
    const random = seeded(18);
    const app = "https://app.example";
    let accepted = 0;
    for (let i = 0; i < 20_000; i++) {
      const length = 1 + Math.floor(random() * 7);
      let url = "";
      for (let j = 0; j < length; j++) url += PIECES[Math.floor(random() * PIECES.length)];
      const judged = trustedReturnTo(url);
      if (judged === null) continue;
      accepted++;
      // Followed from a page of the app, the input and what we emit stay on the app ...
      expect(new URL(url, `${app}/some/page`).origin, url).toBe(app);
      expect(new URL(judged, `${app}/some/page`).origin, url).toBe(app);
      // ... and what we emit is read again as the same path (never as //host).
      expect(judged.startsWith("/") && !judged.startsWith("//"), url).toBe(true);
      expect(new URL(judged, app).pathname, url).toBe(new URL(url, `${app}/`).pathname);
    }
    expect(accepted).toBeGreaterThan(1000); // the generator also makes harmless paths
  });
});
