// The TypeScript blocks of the docs marked `tested` (```` ```tsx tested file=App.tsx ````), written
// to test/docs/<page>/<file> so that they are type-checked with the package's sources (npm run
// typecheck) and run by vitest: a `*.test.tsx` block is a test file of its own; the other blocks
// are modules that test/docs.test.ts imports and runs. The Python blocks are run by
// tests/docs/test_snippets.py. Run by vitest.config.ts and the typecheck script; the folder is
// made anew each time and is not committed.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const JS = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const ROOT = resolve(JS, "..");
export const OUT = join(JS, "test", "docs");

export function pages() {
  const docs = readdirSync(join(ROOT, "docs"))
    .filter((name) => name.endsWith(".md"))
    .sort()
    .map((name) => `docs/${name}`);
  return ["README.md", "js/README.md", ...docs];
}

/** Every ts/tsx block of the docs: {page, line, language, body, tested, file}. */
export function docBlocks() {
  const found = [];
  for (const page of pages()) {
    const text = readFileSync(join(ROOT, page), "utf8");
    for (const match of text.matchAll(/^```(ts|tsx)\b([^\n]*)\n([\s\S]*?)^```/gm)) {
      const words = match[2].trim().split(/\s+/).filter(Boolean);
      const file = words.find((word) => word.startsWith("file="))?.slice("file=".length) ?? null;
      const tested = words.includes("tested");
      const line = text.slice(0, match.index).split("\n").length;
      if (tested && !file) throw new Error(`${page}:${line}: a tested ${match[1]} block needs file=NAME`);
      found.push({ page, line, language: match[1], body: match[3], tested, file });
    }
  }
  return found;
}

/** The folder of a page's blocks: README.md -> readme, docs/admin.md -> docs-admin. */
export function folderOf(page) {
  return page.replace(/\.md$/, "").replace(/\//g, "-").toLowerCase();
}

export function writeDocBlocks() {
  rmSync(OUT, { recursive: true, force: true });
  const written = [];
  for (const block of docBlocks().filter((b) => b.tested)) {
    const target = join(OUT, folderOf(block.page), block.file);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, `// ${block.page} line ${block.line} (made by scripts/doc-blocks.mjs; edit the page)\n${block.body}`);
    written.push(target);
  }
  return written;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const written = writeDocBlocks();
  console.log(`doc-blocks: ${written.length} tested blocks written to test/docs/`);
}
