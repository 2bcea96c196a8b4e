// What an app ships of @authmw/react: two consumer bundles built with esbuild from the package
// as published (dist/), React, react-dom and react-router external, minified and gzipped.
//
//   node scripts/bundle-size.mjs           print the sizes beside their budgets and targets
//   node scripts/bundle-size.mjs --check   also exit 1 when a bundle is over its budget
//   node scripts/bundle-size.mjs --peers   also the same two-line app with the peers' React
//                                          packages, installed into a temporary folder (network)
//
// A budget is the size today plus a small margin, so that nothing grows unnoticed; the target
// is where issue 15 wants it. Lower a budget whenever a change makes the bundle smaller.
import { build } from "esbuild";
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { gzipSync } from "node:zlib";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

/**
 * What one language costs (every text of the pages and the components), as measured plus a small
 * margin: de 6.52, es 6.28, fr 6.53, ja 7.10, pt-BR 6.15, zh-CN 6.66 KB (issue 40). Japanese and
 * Chinese are larger minified because esbuild writes their characters as \u escapes by default.
 * A language grows with every text added in English (and translated).
 *
 * Issue 42 added the 11 texts of the CLI sign-in confirmation page to every language; measured
 * then (with main's texts of the time): de 6.78, es 6.52, fr 6.78, ja 7.40, pt-BR 6.40, zh-CN 6.93.
 * Issue 40's texts of team management, pictures, team creation and onboarding (about 65 more):
 * de 7.59, es 7.29, fr 7.59, ja 8.26, pt-BR 7.16, zh-CN 7.74 before issue 42's were added; with
 * both: de 7.84, es 7.53, fr 7.82, ja 8.55, pt-BR 7.40, zh-CN 8.02. Issue 41's seven texts of the
 * notice after sign-up: de 7.91, es 7.59, fr 7.88, ja 8.63, pt-BR 7.46, zh-CN 8.08. Four texts no
 * page showed went (and onboardingNoEmail was reworded): de 7.84, es 7.52, fr 7.81, ja 8.53,
 * pt-BR 7.38, zh-CN 7.99; each budget 0.05 lower. The questions the link pages ask before they use
 * a link's code (four texts, against login CSRF and mail scanners): de 8,026 -> 8,128 bytes, es
 * 7,696 -> 7,785 (budget 7.6 -> 7.65), fr 7,994 -> 8,095, ja 8,736 -> 8,816, pt-BR 7,554 -> 7,653,
 * zh-CN 8,179 -> 8,274.
 */
const LOCALE_BUDGET_KB = { de: 7.95, es: 7.65, fr: 7.95, ja: 8.65, "pt-BR": 7.5, "zh-CN": 8.1 };

const BUNDLES = [
  {
    name: "AuthProvider + useUser",
    source: `import { AuthProvider, useUser } from "@authmw/react";
      export function App() { return AuthProvider({ projectId: "p", publishableClientKey: "k", children: null }); }
      export function Who() { return useUser().status; }`,
    // +0.1 KB: the refresh policy generated from authmw/refresh_policy.json (issue 28)
    // 10.02 -> 10.19 (issue 29): useUser({ or: "anonymous" }) (0.07) and the stand-ins of the two
    // API-key namespaces (apiKeys, teamApiKeys; their code loads with the first call).
    // 10.19 -> 10.27 (issue 29): the stand-ins of providerAccounts and notificationPreferences.
    // 10.27 -> 9.75 (issue 31): the namespaces' stand-ins make each method on its first use (no
    // lists of method names; -0.12), and the redirect helpers left the main entry for
    // @authmw/react/protocol (-0.43): esbuild put return-to.ts, which the lazily loaded flows
    // and pages use, into this first load because index re-exported it.
    // 9.75 -> 9.85 (issue 40): the provider sends a restricted user to the onboarding page (the
    // check where getUser meets a session it does not show, urls.onboarding and the stand-in of
    // the lazily loaded auth.restrictedSession, whose module does the rest).
    // 9.85 -> 10.00 (issue 40): useUser's or: "redirect" and "throw" (0.1: one effect that leaves
    // for sign-in through the lazily loaded return-path rules, and the throw), the stand-ins of
    // auth.projectPermissions and its cache, and urls.teamCreation (0.05).
    // 10.05 -> 9.74 (issue 40, back under the 9.75 of before): what the first page does not run
    // loads with its first use. useUser's redirect (sign-in, or onboarding for a restricted user)
    // is leaveForSignIn in restricted-session.ts; useUser is a module of its own (use-user.ts),
    // so the other hooks' imports stay out; the pages' URLs come from one list of names; the
    // project's view and the user update's field names (models-on-demand.ts), NEW_PROJECT_CONFIG
    // (new-project-config.ts) and the short-lived-token warning's words (short-lived-warning.gen.ts)
    // left the modules the first load carries; useAuthRedirect (redirect.ts) is the pages' only.
    // The provider's RouterRedirect (redirectMethod "router" for the restricted user's redirect)
    // is in the figure.
    // The cache of the user's received team invitations (issue 42, API 2.8) took it 9 bytes over
    // 9.75 (9,989 of 9,984); the flows' names as one string of words (controller.ts, checked
    // against AuthFlows by the compiler) brought it back to 9,983 bytes (9,980 before issue 40).
    // 9,983 -> 9,993 bytes, budget 9.75 -> 9.76: redirectMethod { navigate } (an app's own
    // router, e.g. Next.js's) beside "router"; the provider hands either to the client, whose
    // redirects (leave in return-to.ts, loaded with the first redirect) use it. The context the
    // pages read the method from is gone (they ask the client), which paid for most of it.
    // 9,992 -> 10,039 bytes (+47), budget 9.76 -> 9.81: redirectMethod "router" under a router's
    // basename (react-router's navigation carries it, from useHref("/"), so that leave hands the
    // router paths without it: configured URLs are the browser's whichever the method).
    // 10,039 -> 10,057 bytes (+18), budget 9.81 -> 9.83: a change's answer (updateUser,
    // selectTeam) is shown only in the session it was made in, never after a sign-out or a
    // switch of user (user-state.ts show).
    // 10,057 -> 10,064 bytes (+7), within 9.83: the session store reads the cookies again
    // before acting on a refresh's answer or a refused access token (another tab may have
    // signed out or in meanwhile). 10,065 (+1) once oauth.ts (loaded on demand) imported
    // isKnownError and OAuthCallbackError, which moved a shared chunk's boundary.
    // 10,065 -> 10,067 bytes (+2), budget 9.83 -> 9.84: a session that ends deletes the 2.8.108
    // SDK's hexclave-access cookie too (sessionCookieWrites), not only stack-access.
    budgetKb: 9.84,
    targetKb: 8,
  },
  {
    name: "every handler page (AuthHandler)",
    source: `import { AuthHandler, AuthProvider } from "@authmw/react";
      export { AuthHandler, AuthProvider };`,
    // +0.1 KB: the refresh policy generated from authmw/refresh_policy.json (issue 28)
    // 33.1 -> 35.6 (issue 31): a sentence for an end user for every catalogue error a page can
    // meet (the table from code to sentence), the two-factor page, the progress card; the
    // provider logos load after the buttons and are not in this figure.
    // 35.6 -> 36.5 (issues 29 and 31): 35.22 -> 36.29 KB for account settings one section at a
    // time (routes, the service-support check) and the sessions section. The sections are not
    // behind import(): esbuild's splitting then moved messages and layout (re-exported by the
    // index) into the provider's first load (10 -> 18.4 KB).
    // 36.5 -> 32.6: 36.29 -> 32.40 KB, the account settings sections load on demand. They import
    // only React, ./kit and ./format, and get hooks, messages and form parts from the page through
    // a context (react/pages/account/kit.ts), so nothing the index re-exports becomes a chunk of
    // their own that the provider's first load imports (it stays 10.02 KB, the components 16.15).
    // A new section adds to its own chunk, not to this figure.
    // 32.50 -> 33.26 (issue 29): the texts of the API-keys section and the team keys, in
    // messages.ts, which every page carries (the section's code is in its own chunk).
    // 33.26 -> 33.85 (issue 29): the texts of the provider-account rows and the notifications
    // section in messages.ts.
    // 33.85 -> 33.95 (issue 31): the kit's new shared parts (the e-mail field, the provider
    // logo and the provider call's state for the connect rows) and the rows' texts.
    // 33.95 -> 33.97 (issue 40): messages.lang, the pages' lang attribute and the locale of their
    // dates and lists. The languages themselves are entries of their own (below), not in here.
    // 33.95 -> 35.29 (issue 40): the onboarding page (a restricted user verifies the e-mail, or
    // reads an administrator's reason) and its texts, 0.1 of it the provider's first load above.
    // 35.29 -> 37.32 (issue 40): the team-creation page, and the texts and styles of team
    // management (name, picture, members, removing a member, deleting a team) and of choosing a
    // picture; their code is in the teams and profile sections' chunks, not in this figure.
    // 37.4 -> 38 (issue 42): the CLI sign-in confirmation page and its texts (+0.6 KB). Behind
    // import() it would take messages and layout into the provider's first load, as the account
    // sections once did (tried: 9.76 -> 19.08 KB), so it is a page like the others.
    // 37.92 -> 37.69 (issue 40): the provider's first load got smaller (above).
    // 37.69 -> 37.88 (issue 41): the sign-up form leaves the note of the verification e-mail it
    // caused (react/verification-note.ts), which the notice after sign-up reads.
    // 38,805 -> 38,897 bytes, budget 37.95 -> 37.99: onboarding asks a user without an e-mail for
    // one (and lets a user replace a mistyped one). The form itself loads on demand with the
    // account sections' kit (-61 bytes against having it in the page) and four texts no page
    // showed went (-63); what stays is the page's new state, its "Use another e-mail address" and
    // the reworded onboardingNoEmail: 36 bytes over 37.95.
    // 38,897 -> 38,979 bytes (+82), budget 37.99 -> 38.1: leave (return-to.ts), the one redirect
    // decision (the app's navigation only for a path of this origin, as the browser parses it;
    // else a page load), which the pages' useAuthRedirect now uses.
    // 38,979 -> 39,110 bytes (+131), budget 38.1 -> 38.2: the same rule under a basename for the
    // pages' links (AuthLink: a router link only for what leave would route, routerPath in
    // return-to.ts), their return paths (with the basename) and the way back to sign-in after a
    // failed sign-in (through leave: a page load for a sign-in page on another origin).
    // 39,099 -> 39,125 bytes (+26), budget 38.2 -> 38.21: the first load's share of showing a
    // change's answer only in the session it was made in (above).
    // 39,125 -> 39,131 bytes (+6), budget 38.21 -> 38.22: the first load's share of reading
    // the cookies again before a refresh's answer is acted on (above).
    // 39,131 -> 39,195 bytes (+64), budget 38.22 -> 38.28: the magic-link page leaves a signed-in
    // user's session as it is (the sign-in page's "already signed in" card, now one component
    // both pages render) instead of swapping it for the link's account on arrival.
    // 39,194 -> 39,389 bytes (+195), budget 38.28 -> 38.47: the magic-link and e-mail
    // verification pages ask first ("Sign in with this link?", ConfirmLink in layout.tsx, and its
    // four English texts) and use the link's code on the click only: no login CSRF into the
    // link's account, no mail scanner using the code up.
    budgetKb: 38.47,
    targetKb: 30,
  },
  // The components are modules of their own: an app that does not render them does not load
  // them (the first bundle stays as it was); this one is what the five of them cost together.
  {
    name: "AuthProvider + every component",
    source: `import { AuthProvider, Protect, SelectedTeamSwitcher, SignedIn, SignedOut, UserButton } from "@authmw/react";
      export { AuthProvider, Protect, SelectedTeamSwitcher, SignedIn, SignedOut, UserButton };`,
    // 16.42 -> 16.68 (issue 29): guests in SignedIn/SignedOut (includeAnonymous) and a guest's
    // UserButton menu (Sign up, Sign in).
    // 16.68 -> 16.61 (issue 31): the provider's first load got smaller (above).
    // 16.61 -> 16.72 (issue 40): the provider's first load (above); the new UserAvatar,
    // SignInButton and SignUpButton are not in this figure (a page that renders them loads them).
    // 16.72 -> 17.92 (issue 40): the team switcher as a menu button (the teams with their
    // pictures, the current one checked, Manage and Create entries; the menu-button hook it now
    // shares with UserButton), Protect's project-permission gate, the first load above.
    // 17.95 -> 17.61 (issue 40): the provider's first load got smaller (above).
    // 17.61 -> 18.00 (issue 41): UserButton's slot for the notice after a sign-up (it checks
    // for the sign-up's note and loads the notice, whose code is a chunk of its own, only then)
    // and the notice's English texts in DEFAULT_COMPONENT_TEXTS. The provider's first load is
    // unchanged: the provider does not render the notice, so an app without components pays nothing.
    // 18.03 -> 18.13 (+105 bytes), budget 18.05 -> 18.15: useAuth().redirectToSignIn() goes
    // through leave (above, the pages' figure), which UserButton's useAuth brings along.
    // 18,562 -> 18,766 bytes (+204), budget 18.15 -> 18.33: the components' links and return
    // paths under a basename (AuthLink, usePageLocation, routerPath), SignOutLink through leave,
    // and the first load's share (above).
    // 18,766 -> 18,788 bytes (+22), budget 18.33 -> 18.35: the first load's share of showing a
    // change's answer only in the session it was made in (above).
    // 18,788 -> 18,795 bytes (+7), budget 18.35 -> 18.36: the first load's share of reading
    // the cookies again before a refresh's answer is acted on (above).
    budgetKb: 18.36,
    targetKb: 16.5,
  },
  // The languages (issue 40): each is an entry of its own, so an app pays only for the one it
  // imports, and nothing above grows with them.
  ...["de", "es", "fr", "ja", "pt-BR", "zh-CN"].map((lang) => ({
    name: `language ${lang} (locales/${lang})`,
    source: `import locale from "@authmw/react/locales/${lang}"; export default locale;`,
    alias: { [`@authmw/react/locales/${lang}`]: join(root, "dist", "locales", `${lang}.js`) },
    budgetKb: LOCALE_BUDGET_KB[lang],
    targetKb: LOCALE_BUDGET_KB[lang],
  })),
];

/** The provider and the signed-in user of the lightest peers, the way their docs show them. */
const PEERS = [
  {
    name: "@propelauth/react: AuthProvider + useAuthInfo",
    packages: ["@propelauth/react@2.1.1"],
    source: `import { AuthProvider, useAuthInfo } from "@propelauth/react";
      export function App() { return AuthProvider({ authUrl: "https://auth.example.com", children: null }); }
      export function Who() { return useAuthInfo().loading; }`,
  },
  {
    name: "@stackframe/react: StackProvider + useUser",
    packages: ["@stackframe/react@2.8.108"],
    source: `import { StackClientApp, StackProvider, useUser } from "@stackframe/react";
      const app = new StackClientApp({ projectId: "p", publishableClientKey: "k", tokenStore: "cookie" });
      export function App() { return StackProvider({ app, children: null }); }
      export function Who() { return useUser()?.id; }`,
  },
  {
    name: "@clerk/react: ClerkProvider + useUser",
    packages: ["@clerk/react@6.17.2"],
    source: `import { ClerkProvider, useUser } from "@clerk/react";
      export function App() { return ClerkProvider({ publishableKey: "pk_test_x", children: null }); }
      export function Who() { return useUser().isSignedIn; }`,
  },
];

/** Minified and gzipped size of what the page loads first: the entry and the chunks it imports
 * statically (code behind a dynamic import(), such as the passkey and QR libraries, loads
 * later and is left out, as an app's bundler splits it off). */
async function initialKb(source, dir, alias = { "@authmw/react": join(root, "dist", "index.js") }) {
  const entry = join(dir, `entry-${Math.random().toString(36).slice(2)}.mjs`);
  writeFileSync(entry, source);
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    splitting: true,
    minify: true,
    format: "esm",
    platform: "browser",
    outdir: join(dir, "out"),
    write: false,
    metafile: true,
    external: ["react", "react-dom", "react/jsx-runtime", "react-router"],
    alias,
    logLevel: "error",
  });
  const outputs = result.metafile.outputs;
  const files = new Map(result.outputFiles.map((file) => [relative(process.cwd(), file.path), file.contents]));
  // The app's own entry (a chunk behind a dynamic import() is an entry point in the metafile too).
  const entryPoint = relative(process.cwd(), entry);
  const start = Object.keys(outputs).find((name) => outputs[name].entryPoint === entryPoint && !name.endsWith(".map"));
  if (!start) throw new Error(`no output for ${entryPoint}`);
  const seen = new Set();
  const visit = (name) => {
    if (seen.has(name)) return;
    seen.add(name);
    for (const imported of outputs[name].imports) if (imported.kind === "import-statement" && !imported.external) visit(imported.path);
  };
  visit(start);
  const raw = Buffer.concat([...seen].map((name) => files.get(name)));
  return { raw: raw.length / 1024, gzip: gzipSync(raw, { level: 9 }).length / 1024 };
}

const check = process.argv.includes("--check");
let over = 0;
console.log("@authmw/react as an app bundles it (esbuild, minified, gzip -9; React and react-router external)");
const dir = mkdtempSync(join(tmpdir(), "authmw-bundle-"));
for (const bundle of BUNDLES) {
  const { raw, gzip } = await initialKb(bundle.source, dir, bundle.alias);
  const verdict = gzip > bundle.budgetKb ? "OVER BUDGET" : gzip > bundle.targetKb ? "within budget, above target" : "meets target";
  if (gzip > bundle.budgetKb) over += 1;
  console.log(
    `  ${bundle.name.padEnd(36)} ${raw.toFixed(1).padStart(6)} KB min  ${gzip.toFixed(2).padStart(6)} KB gz` +
      `   budget ${bundle.budgetKb} KB, target ${bundle.targetKb} KB: ${verdict}`,
  );
}
if (process.argv.includes("--peers")) {
  console.log("peers, the same way (installed now into a temporary folder):");
  const peers = join(dir, "peers");
  writeFileSync(join(dir, "package.json"), "{}");
  const wanted = [...new Set(PEERS.flatMap((peer) => peer.packages))];
  execFileSync("npm", ["install", "--prefix", peers, "--no-audit", "--no-fund", "--loglevel=error", ...wanted, "react@19", "react-dom@19", "react-router@7"], {
    stdio: ["ignore", "ignore", "inherit"],
  });
  for (const peer of PEERS) {
    const { raw, gzip } = await initialKb(peer.source, peers, {});
    console.log(`  ${peer.name.padEnd(44)} ${raw.toFixed(1).padStart(6)} KB min  ${gzip.toFixed(2).padStart(6)} KB gz`);
  }
}
rmSync(dir, { recursive: true, force: true });
if (check && over > 0) {
  console.error(`${over} bundle(s) over budget: make them smaller, or raise the budget in scripts/bundle-size.mjs with a reason.`);
  process.exit(1);
}
