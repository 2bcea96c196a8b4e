// Both generations of the official SDK on one page: window.officialSdk.make("2.7" | "2.8", options).
import { StackClientApp as StackClientApp27 } from "stack27";
import { StackClientApp as StackClientApp28 } from "stack28";

window.officialSdk = {
  make(version, options) {
    const App = version === "2.7" ? StackClientApp27 : StackClientApp28;
    // redirectMethod "none": the tests drive navigation themselves.
    return new App({ tokenStore: "cookie", redirectMethod: "none", ...options });
  },
};
