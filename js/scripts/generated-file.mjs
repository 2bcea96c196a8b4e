// The write-or-check step every generator of src/*.gen.ts ends with.
import { readFileSync, writeFileSync } from "node:fs";
import { basename } from "node:path";

/** Writes `text` to `outputPath`; with `--check` in `argv`, exits 1 instead when the file differs. */
export function writeOrCheck(outputPath, text, argv, command) {
  if (!argv.includes("--check")) {
    writeFileSync(outputPath, text);
    console.log(`wrote ${outputPath}`);
    return;
  }
  let current = "";
  try {
    current = readFileSync(outputPath, "utf8");
  } catch {
    // a missing file counts as stale
  }
  if (current !== text) {
    console.error(`src/${basename(outputPath)} is stale: run \`${command}\` and commit the result.`);
    process.exit(1);
  }
}
