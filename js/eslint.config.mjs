// ESLint for what the type checker cannot see: React's rules of hooks (a hook called in a
// branch or a loop breaks the component at run time) and effects' dependency lists. Run by
// `npm run lint` (scripts/test.sh), which also lints the example app's source with this same
// configuration (examples/web/eslint.config.mjs). An exception says why, on the line before it.
import reactHooks from "eslint-plugin-react-hooks";
import tseslint from "typescript-eslint";

const rules = {
  languageOptions: { parser: tseslint.parser },
  plugins: { "react-hooks": reactHooks, "@typescript-eslint": tseslint.plugin },
  linterOptions: { reportUnusedDisableDirectives: "error" },
  rules: {
    "react-hooks/rules-of-hooks": "error",
    "react-hooks/exhaustive-deps": "error",
    "@typescript-eslint/no-unsafe-declaration-merging": "error",
  },
};

export default [
  { ignores: ["dist/", "node_modules/", "test/docs/"] },
  { files: ["src/**/*.{ts,tsx}", "test/**/*.{ts,tsx}"], ...rules },
];
