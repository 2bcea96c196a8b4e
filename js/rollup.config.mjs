// Library build: ESM + type declarations; every bare import (react, react-router, ...) stays external.
import typescript from "@rollup/plugin-typescript";

const isBareImport = (id) => !id.startsWith(".") && !id.startsWith("/") && !id.startsWith("\0");

export default {
  input: { index: "src/index.ts", core: "src/core.ts", testing: "src/testing.tsx" },
  external: isBareImport,
  output: {
    dir: "dist",
    format: "es",
    entryFileNames: "[name].js",
    chunkFileNames: "chunks/[name]-[hash].js",
    sourcemap: true,
  },
  plugins: [typescript({ tsconfig: "./tsconfig.build.json" })],
};
