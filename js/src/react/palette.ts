/** The light and dark palettes of the handler pages (styles.tsx) and the components (components/theme.tsx). */
export const LIGHT = `
  --authmw-accent: #2f54d0; --authmw-accent-text: #ffffff; --authmw-accent-soft: #e8edfc;
  --authmw-background: #f3f4f7; --authmw-surface: #ffffff; --authmw-surface-muted: #eceef2;
  --authmw-text: #1a1d23; --authmw-muted: #565e6c; --authmw-border: #dadde3; --authmw-input-border: #8c93a0;
  --authmw-error: #b42318; --authmw-error-soft: #fdeceb; --authmw-success: #17692f; --authmw-success-soft: #e7f5ec;
  --authmw-shadow: 0 1px 2px rgb(16 24 40 / 6%), 0 8px 24px rgb(16 24 40 / 8%);
  color-scheme: light;`;

export const DARK = `
  --authmw-accent: #8ca6ff; --authmw-accent-text: #0b1020; --authmw-accent-soft: #1f2a4d;
  --authmw-background: #0e1014; --authmw-surface: #171a20; --authmw-surface-muted: #22262e;
  --authmw-text: #e8eaef; --authmw-muted: #a4abb8; --authmw-border: #2d323c; --authmw-input-border: #6b7383;
  --authmw-error: #ff9b91; --authmw-error-soft: #3a1d1b; --authmw-success: #7ed99a; --authmw-success-soft: #14301f;
  --authmw-shadow: 0 1px 2px rgb(0 0 0 / 40%), 0 8px 24px rgb(0 0 0 / 35%);
  color-scheme: dark;`;

/**
 * Scopes a stylesheet written with `:where(.root …)` selectors to its root, so that the rules keep
 * their look inside any host page: each rule of an element inside the root gets the specificity
 * of two classes (the root's, twice, in `:is()`), more than a host's element rules (`h1`,
 * `a:hover`, `button:focus`), while all of them keep one specificity among themselves (their
 * order decides, as written). The root's own rules (the palettes' variables) keep zero
 * specificity: an app themes the pages on purpose with `.root { --authmw-accent: … }`.
 */
export function scopeRules(css: string, root: string): string {
  const scope = `:is(.${root} *)`;
  return css.replaceAll(`:where(.${root} `, `${scope}${scope}:where(.${root} `);
}

/**
 * The package's reset, first in its stylesheet: every element under the root (but images, SVG,
 * whose attributes are style hints, and the app's own logo element) drops what the host's rules
 * gave it and starts from the browser's defaults; the package's rules then style it.
 */
export function revertHost(root: string): string {
  return `:where(.${root} *:not(svg, svg *, img, .authmw-brand > :not(.authmw-app-name), .authmw-brand > :not(.authmw-app-name) *)) { all: revert; }`;
}

/**
 * What the package's root resets of what it would otherwise inherit from a host page (Vite's
 * `#root { text-align: center }`, `:root { letter-spacing: 0.18px }`), beside its colours and font.
 */
export const ROOT_RESET = `text-align: start; letter-spacing: normal; word-spacing: normal; text-transform: none;
  font-weight: 400; font-style: normal; text-indent: 0; white-space: normal;`;
