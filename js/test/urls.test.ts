import { describe, expect, it } from "vitest";
import { authPageUrl, resolveUrls, toRelativeUrl, trustedReturnTo, UntrustedRedirectError, withReturnTo } from "../src/urls";

describe("redirect trust (contract 7.3)", () => {
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
