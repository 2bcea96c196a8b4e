// Its own file: React keeps a hoisted stylesheet for the document's life, and each test file
// gets a fresh document.
import { cleanup, render } from "@testing-library/react";
import { MemoryRouter, Route, Routes } from "react-router";
import { afterEach, describe, expect, it } from "vitest";
import { AuthHandler, DEFAULT_STYLES } from "../src/index";
import { AuthProviderForTesting } from "../src/testing";

const SHEET = 'style[data-href="authmw-default-styles"], style[href="authmw-default-styles"]';

function renderHandler(path: string, defaultStyles?: boolean) {
  return render(
    <MemoryRouter initialEntries={[path]}>
      <AuthProviderForTesting user={null}>
        <Routes>
          <Route path="/handler/*" element={<AuthHandler defaultStyles={defaultStyles} />} />
        </Routes>
      </AuthProviderForTesting>
    </MemoryRouter>,
  );
}

afterEach(cleanup);

describe("default styles of the handler pages", () => {
  it("are left out with defaultStyles={false}", () => {
    renderHandler("/handler/sign-in", false);
    expect(document.querySelectorAll(SHEET).length).toBe(0);
  });

  it("are rendered once however many pages use them, every rule scoped under the page with two classes' specificity", () => {
    renderHandler("/handler/sign-in");
    renderHandler("/handler/sign-up");
    const sheets = document.querySelectorAll(SHEET);
    expect(sheets.length).toBe(1);
    expect(sheets[0].textContent).toBe(DEFAULT_STYLES);
    const selectors = DEFAULT_STYLES.replace(/@keyframes[^{]*\{[^{}]*\{[^}]*\}\s*\}/g, "")
      .replace(/@media[^{]*\{/g, "")
      .split("}")
      .map((rule) => rule.split("{")[0]!.trim())
      .filter(Boolean);
    expect(selectors.length).toBeGreaterThan(40);
    // A pseudo-element inside :where() makes the selector invalid (the rule would be dropped).
    expect(DEFAULT_STYLES).not.toContain("::");
    // The scope, then one :where(...) group as a whole: every rule has the scope's specificity
    // (two classes, more than a host's `a:hover`), so the rules' own order decides among them.
    // The root's own rules (the palettes' variables) keep zero specificity, so an app's
    // `.authmw-page { --authmw-accent: ... }` themes the pages.
    const scope = ":is(.authmw-page *):is(.authmw-page *)";
    const group = /^:where\((?:[^()]|\((?:[^()]|\([^()]*\))*\))*\)$/;
    const scoped = selectors.filter((selector) => selector.startsWith(scope));
    const root = selectors.filter((selector) => !selector.startsWith(scope));
    expect(scoped.length).toBeGreaterThan(40);
    for (const selector of scoped) {
      expect(selector.slice(scope.length).startsWith(":where(.authmw-page ")).toBe(true);
      expect(selector.slice(scope.length)).toMatch(group);
    }
    for (const selector of root) {
      expect(selector).toMatch(group);
      expect(selector).not.toContain(".authmw-page "); // nothing inside the page at zero specificity
    }
  });

  it("set both background and text in the light and the dark palette", () => {
    for (const scheme of ["light", "dark"] as const) {
      const block = scheme === "light" ? DEFAULT_STYLES.split("@media")[0]! : DEFAULT_STYLES.split(":where(.authmw-page[data-color-scheme=dark])")[1]!;
      for (const variable of ["--authmw-background", "--authmw-surface", "--authmw-text", "--authmw-muted", "--authmw-accent"]) {
        expect(block).toContain(`${variable}:`);
      }
    }
    expect(DEFAULT_STYLES).toContain("background: var(--authmw-background); color: var(--authmw-text);");
    expect(DEFAULT_STYLES).toContain(":where(.authmw-page:not([data-color-scheme=light]))");
  });
});
