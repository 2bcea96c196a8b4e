import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import * as core from "../src/core";
import * as index from "../src/index";
import * as testing from "../src/testing";

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
