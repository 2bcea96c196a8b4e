// The example app's source is linted with the package's configuration (js/eslint.config.mjs):
// `npm run lint` in js/ runs ESLint here too. Its patterns (src/**) apply from this directory.
export { default } from "../../js/eslint.config.mjs";
