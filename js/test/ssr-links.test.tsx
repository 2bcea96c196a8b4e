// @vitest-environment node
// The components' links rendered without a page (a server's render, no window.location): plain
// links to the URLs as configured, the router's basename kept once (the router's link takes over
// in the browser, with the same href).
import { renderToString } from "react-dom/server";
import { StaticRouter } from "react-router";
import { describe, expect, it } from "vitest";
import { AuthProvider, SignInButton } from "../src/index";
import { BASE_URL, clientWith, PROJECT_ID } from "./helpers";

describe("links rendered on a server", () => {
  it("SignInButton under a basename: the configured sign-in URL, coming back to the page with its basename", () => {
    expect(typeof location).toBe("undefined");
    const { client } = clientWith({ handlerPath: "/app/handler" });
    const html = renderToString(
      <StaticRouter basename="/app" location="/app/pricing?plan=2">
        <AuthProvider projectId={PROJECT_ID} baseUrl={BASE_URL} client={client}>
          <SignInButton />
        </AuthProvider>
      </StaticRouter>,
    );
    expect(html).toContain(`href="/app/handler/sign-in?after_auth_return_to=${encodeURIComponent("/app/pricing?plan=2")}"`);
  });
});
