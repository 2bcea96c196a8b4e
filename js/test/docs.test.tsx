import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { cleanup, render, screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { docBlocks, folderOf, OUT } from "../scripts/doc-blocks.mjs";
import * as core from "../src/core";
import * as errors from "../src/errors";
import * as index from "../src/index";
import { DEFAULT_STYLES } from "../src/react/styles";
import * as testing from "../src/testing";
import { App as JsReadmeApp } from "./docs/js-readme/App";
import ReadmeApp from "./docs/readme/App";

// The TypeScript blocks of the docs import names that the package exports (the Python side,
// tests/docs/test_snippets.py, checks and runs the other blocks).
const ROOT = join(__dirname, "..", "..");
const PAGES = [
  join(ROOT, "README.md"),
  join(ROOT, "js", "README.md"),
  ...readdirSync(join(ROOT, "docs"))
    .filter((name) => name.endsWith(".md"))
    .map((name) => join(ROOT, "docs", name)),
];
const ENTRIES: Record<string, Record<string, unknown>> = {
  "@authmw/react": index,
  "@authmw/react/core": core,
  "@authmw/react/errors": errors,
  "@authmw/react/testing": testing,
};

interface Imported {
  where: string;
  from: string;
  names: string[];
}

function importsOfTheDocs(): Imported[] {
  const found: Imported[] = [];
  for (const page of PAGES) {
    const text = readFileSync(page, "utf8");
    for (const block of text.matchAll(/^```(ts|tsx)\b[^\n]*\n([\s\S]*?)^```/gm)) {
      const line = text.slice(0, block.index).split("\n").length;
      for (const statement of block[2].matchAll(/import\s*\{([^}]*)\}\s*from\s*"(@authmw\/[^"]+)"/g)) {
        const names = statement[1]
          .split(",")
          .map((name) => name.trim())
          .filter((name) => name && !name.startsWith("type "))
          .map((name) => name.split(/\s+as\s+/)[0]);
        found.push({ where: `${page.slice(ROOT.length + 1)}:${line}`, from: statement[2], names });
      }
    }
  }
  return found;
}

describe("the docs' TypeScript blocks", () => {
  const imports = importsOfTheDocs();

  it("are found", () => {
    expect(imports.map((i) => i.from)).toEqual(
      expect.arrayContaining(["@authmw/react", "@authmw/react/core", "@authmw/react/testing"]),
    );
  });

  it.each(imports.map((i) => [i.where, i] as const))("%s imports names the package exports", (_where, imported) => {
    const entry = ENTRIES[imported.from];
    expect(entry, `${imported.where}: ${imported.from} is not an entry of the package`).toBeDefined();
    const missing = imported.names.filter((name) => !(name in entry));
    expect(missing, `${imported.where}: not exported by ${imported.from}`).toEqual([]);
  });
});

// The tested blocks themselves (scripts/doc-blocks.mjs writes them to test/docs/ before vitest
// lists the test files; a `*.test.tsx` block runs as a test file of its own). The modules are
// used here as a reader would use them.
describe("the docs' tested TypeScript blocks", () => {
  it("every tested block was written out", () => {
    const tested = docBlocks().filter((block) => block.tested);
    expect(tested.map((block) => `${folderOf(block.page)}/${block.file}`).sort()).toEqual(
      writtenBlocks().sort(),
    );
    expect(tested.length).toBeGreaterThanOrEqual(6);
  });

  it.each([
    ["README.md", ReadmeApp],
    ["js/README.md", JsReadmeApp],
  ])("the App of %s shows a signed-out visitor the way to sign in", async (_page, App) => {
    window.history.replaceState(null, "", "/");
    render(<App />);
    expect(await screen.findByText("Sign in")).toBeTruthy();
    window.history.replaceState(null, "", "/handler/sign-in");
    cleanup();
    render(<App />);
    expect(await screen.findByRole("heading", { name: /sign in/i })).toBeTruthy();
    cleanup();
  });
});

function writtenBlocks(): string[] {
  const found: string[] = [];
  for (const folder of readdirSync(OUT)) {
    for (const file of readdirSync(join(OUT, folder))) found.push(`${folder}/${file}`);
  }
  return found;
}

describe("the docs' theming", () => {
  it("names only CSS variables the default stylesheet uses", () => {
    const named = new Set<string>();
    const themed = [readFileSync(join(ROOT, "js", "README.md"), "utf8")]; // the theming section
    for (const page of PAGES) {
      for (const block of readFileSync(page, "utf8").matchAll(/^```css\b[^\n]*\n([\s\S]*?)^```/gm)) themed.push(block[1]);
    }
    for (const text of themed) {
      for (const match of text.matchAll(/--authmw-[a-z-]*[a-z]/g)) named.add(match[0]);
    }
    expect(named.size).toBeGreaterThanOrEqual(10);
    const unknown = [...named].filter((name) => !DEFAULT_STYLES.includes(`var(${name}`));
    expect(unknown, "variables the docs name but the stylesheet never reads").toEqual([]);
  });
});
