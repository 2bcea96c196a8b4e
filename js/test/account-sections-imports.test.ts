// The account settings sections (and the onboarding page's add-e-mail form) load on demand (lazy
// import()). A section file that imported the package's hooks, messages or layout itself would
// make an app's bundler (esbuild's splitting) move those modules into the provider's first load;
// sections take them from useSectionKit().
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const dir = join(__dirname, "..", "src", "react", "pages", "account");
/** What a section may import at run time: React, the kit, and leaf modules of its own folder. */
/** (Relative imports carry their `.js` extension, as everywhere in src.) */
const ALLOWED = new Set(["react", ...["./kit", "./format", "./api-key-manager", "./action-row", "./focus-swap", "./avatar", "./picture", "./team-manage", "../../../account-rules"].map((path) => `${path}.js`)]);
const PAGE = new Set(["account-settings.tsx", "kit.ts", "section.tsx", "format.ts"]);
/** Parts that sections share (not sections): held to the same rule, loaded with the sections that use them. */
const PARTS = new Set(["api-key-manager.tsx", "action-row.tsx", "focus-swap.ts", "avatar.tsx", "picture.tsx", "team-manage.tsx"]);

describe("account settings sections", () => {
  const files = readdirSync(dir).filter((file) => /\.tsx?$/.test(file) && !PAGE.has(file));
  const sections = files.filter((file) => !PARTS.has(file));

  it("are each loaded with import() by the page", () => {
    const page = readFileSync(join(dir, "account-settings.tsx"), "utf8");
    expect(sections.length).toBeGreaterThan(5);
    for (const file of sections) expect(page).toContain(`lazy(() => import("./${file.replace(/\.tsx?$/, "")}.js"))`);
  });

  it("import at run time only React, ./kit, ./format and their shared parts", () => {
    for (const file of files) {
      const source = readFileSync(join(dir, file), "utf8");
      const runtime = [...source.matchAll(/^import (?!type )[^;]*? from "([^"]+)";/gms)].map((match) => match[1]);
      expect({ file, imports: runtime.filter((from) => !ALLOWED.has(from!)) }).toEqual({ file, imports: [] });
    }
  });
});

describe("the onboarding page's add-e-mail form (loaded on demand, as a section)", () => {
  const pages = join(__dirname, "..", "src", "react", "pages");

  it("is loaded with import() and imports at run time only React and the kit", () => {
    expect(readFileSync(join(pages, "onboarding.tsx"), "utf8")).toContain('lazy(() => import("./onboarding-email.js"))');
    const source = readFileSync(join(pages, "onboarding-email.tsx"), "utf8");
    const runtime = [...source.matchAll(/^import (?!type )[^;]*? from "([^"]+)";/gms)].map((match) => match[1]);
    expect(runtime.filter((from) => from !== "react" && from !== "./account/kit.js")).toEqual([]);
  });
});
