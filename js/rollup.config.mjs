// Library build: ESM, one file per module, + type declarations; every bare import (react,
// react-router, ...) stays external.
import typescript from "@rollup/plugin-typescript";

const isBareImport = (id) => !id.startsWith(".") && !id.startsWith("/") && !id.startsWith("\0");

export default {
  input: {
    index: "src/index.ts",
    core: "src/core.ts",
    errors: "src/errors.ts",
    protocol: "src/protocol.ts",
    testing: "src/testing.tsx",
    // One entry per language: an app loads only the one it imports.
    "locales/de": "src/locales/de.ts",
    "locales/es": "src/locales/es.ts",
    "locales/fr": "src/locales/fr.ts",
    "locales/ja": "src/locales/ja.ts",
    "locales/pt-BR": "src/locales/pt-BR.ts",
    "locales/zh-CN": "src/locales/zh-CN.ts",
  },
  external: isBareImport,
  output: {
    dir: "dist",
    format: "es",
    entryFileNames: "[name].js",
    // One file per source module (not merged chunks), so that an app's bundler can leave out
    // every module the app does not use ("sideEffects": false in package.json).
    preserveModules: true,
    preserveModulesRoot: "src",
    sourcemap: true,
  },
  plugins: [typescript({ tsconfig: "./tsconfig.build.json" })],
};
