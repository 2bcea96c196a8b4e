// Builds the example app (examples/web) into examples/web/dist: index.html (with the
// <!--AUTHMW_CONFIG--> marker the example server replaces), the app.js bundle, and chunks/ for
// what the package imports only when used (the passkey helper, the TOTP and QR-code libraries).
// @authmw/react comes from js/src and every package from js/node_modules, so React is bundled once.
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import commonjs from "@rollup/plugin-commonjs";
import { nodeResolve } from "@rollup/plugin-node-resolve";
import replace from "@rollup/plugin-replace";
import terser from "@rollup/plugin-terser";
import typescript from "@rollup/plugin-typescript";

const here = dirname(fileURLToPath(import.meta.url));
const web = resolve(here, "../examples/web");
const CONFIG_MARKER = "<!--AUTHMW_CONFIG-->";

/** Resolves @authmw/react to this package's sources. */
function authmwSource() {
  return {
    name: "authmw-source",
    resolveId(id) {
      if (id === "@authmw/react") return resolve(here, "src/index.ts");
      if (id === "@authmw/react/testing") return resolve(here, "src/testing.tsx");
      if (id === "@authmw/react/core") return resolve(here, "src/core.ts");
      const locale = /^@authmw\/react\/locales\/([\w-]+)$/.exec(id);
      if (locale) return resolve(here, "src/locales", `${locale[1]}.ts`);
      return null;
    },
  };
}

/** Copies index.html into the output, after checking that it still has the config marker. */
function indexHtml() {
  const source = resolve(web, "index.html");
  return {
    name: "index-html",
    buildStart() {
      this.addWatchFile(source);
    },
    generateBundle() {
      const html = readFileSync(source, "utf8");
      if (!html.includes(CONFIG_MARKER)) this.error(`${source} must contain ${CONFIG_MARKER}`);
      this.emitFile({ type: "asset", fileName: "index.html", source: html });
    },
  };
}

export default {
  input: resolve(web, "src/main.tsx"),
  onwarn(warning, warn) {
    // Packages mark their modules "use client"; that means nothing in a client-only bundle.
    if (warning.code === "MODULE_LEVEL_DIRECTIVE") return;
    warn(warning);
  },
  output: {
    dir: resolve(web, "dist"),
    entryFileNames: "app.js",
    chunkFileNames: "chunks/[name]-[hash].js",
    format: "es",
    sourcemap: true,
  },
  plugins: [
    authmwSource(),
    replace({ preventAssignment: true, values: { "process.env.NODE_ENV": JSON.stringify("production") } }),
    nodeResolve({
      browser: true,
      extensions: [".mjs", ".js", ".json", ".ts", ".tsx"],
      modulePaths: [resolve(here, "node_modules")],
      dedupe: ["react", "react-dom", "react-router"],
      exportConditions: ["production"],
    }),
    commonjs(),
    typescript({ tsconfig: resolve(here, "tsconfig.example.json") }),
    terser(),
    indexHtml(),
  ],
};
