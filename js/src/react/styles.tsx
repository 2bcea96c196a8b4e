import { DARK, LIGHT, revertHost, ROOT_RESET, scopeRules } from "./palette.js";
import type { JSX } from "react";

/**
 * The handler pages' default look. Plain CSS, rendered once as a <style> element: no CSS-in-JS
 * runtime. Every rule is scoped under .authmw-page with the specificity of two classes (see
 * scopeRules), so a host page's element rules (Vite's `h1`, `a`, `button`) leave the pages' look
 * alone. The app themes the pages on purpose through CSS variables on .authmw-page:
 *
 *   --authmw-accent, --authmw-accent-text   buttons, links, focus ring
 *   --authmw-background, --authmw-surface   page and card
 *   --authmw-text, --authmw-muted           text and secondary text
 *   --authmw-border, --authmw-input-border  lines and field outlines
 *   --authmw-error, --authmw-success        messages
 *   --authmw-radius, --authmw-font          corner radius and font stack
 *
 * Light and dark palettes both set background and text. "system" (default) follows
 * prefers-color-scheme; <AuthHandler colorScheme="light" | "dark"> fixes one (data-color-scheme).
 */
export const DEFAULT_STYLES = scopeRules(`
:where(.authmw-page) {${LIGHT} ${ROOT_RESET}
  --authmw-radius: 8px; --authmw-font: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", sans-serif;
  box-sizing: border-box; min-height: 100vh; min-height: 100dvh; margin: 0;
  display: flex; flex-direction: column; align-items: center;
  padding: clamp(0.75rem, 6vh, 4rem) 0.75rem;
  background: var(--authmw-background); color: var(--authmw-text);
  font-family: var(--authmw-font); font-size: 1rem; line-height: 1.5; -webkit-font-smoothing: antialiased;
}
@media (prefers-color-scheme: dark) {
  :where(.authmw-page:not([data-color-scheme=light])) {${DARK}
  }
}
:where(.authmw-page[data-color-scheme=dark]) {${DARK}
}
:where(body:has(.authmw-page)) { margin: 0; }
${revertHost("authmw-page")}
:where(.authmw-page *) { box-sizing: border-box; }

:where(.authmw-page .authmw-card) {
  /* min-width: as wide inside a host that shrink-wraps the page (Vite's old flex body) as alone */
  width: 100%; max-width: 25rem; min-width: min(25rem, 100vw - 2rem); background: var(--authmw-surface); border: 1px solid var(--authmw-border);
  border-radius: calc(var(--authmw-radius) * 1.5); box-shadow: var(--authmw-shadow); padding: 2rem 1.75rem;
}
@media (max-width: 30rem) {
  :where(.authmw-page .authmw-card) { padding: 1.5rem 1.25rem; }
}
:where(.authmw-page .authmw-card-header) { text-align: center; margin-bottom: 1.5rem; }
:where(.authmw-page .authmw-brand) { display: flex; flex-direction: column; align-items: center; gap: 0.5rem; margin-bottom: 0.75rem; }
:where(.authmw-page .authmw-logo) { max-height: 2.5rem; max-width: 10rem; }
:where(.authmw-page .authmw-app-name) { font-size: 0.875rem; font-weight: 600; color: var(--authmw-muted); letter-spacing: 0.01em; }
:where(.authmw-page h1, .authmw-page h2, .authmw-page h3) { font-family: inherit; color: inherit; letter-spacing: normal; text-transform: none; }
:where(.authmw-page h1) { font-size: 1.5rem; line-height: 1.25; font-weight: 650; letter-spacing: -0.01em; margin: 0; }
:where(.authmw-page h2) { font-size: 1.125rem; line-height: 1.3; font-weight: 620; margin: 0 0 1rem; }
:where(.authmw-page h3) { font-size: 0.95rem; font-weight: 600; margin: 0.5rem 0; }
:where(.authmw-page .authmw-subtitle) { margin: 0.35rem 0 0; color: var(--authmw-muted); font-size: 0.95rem; }
:where(.authmw-page .authmw-card-body, .authmw-page .authmw-stack) { display: grid; gap: 1rem; }
:where(.authmw-page .authmw-card-footer) {
  margin-top: 1.5rem; padding-top: 1.25rem; border-top: 1px solid var(--authmw-border);
  text-align: center; font-size: 0.925rem; color: var(--authmw-muted);
}
:where(.authmw-page p) { margin: 0; }
:where(.authmw-page .authmw-card-footer p) { margin: 0; }

:where(.authmw-page .authmw-form) { display: grid; gap: 1rem; }
:where(.authmw-page .authmw-field) { display: grid; gap: 0.35rem; }
:where(.authmw-page label) { font-size: 0.875rem; font-weight: 560; color: inherit; text-align: start; }
:where(.authmw-page input:not([type=checkbox]):not([type=radio]), .authmw-page select, .authmw-page textarea) {
  font: inherit; color: var(--authmw-text); background: var(--authmw-surface);
  border: 1px solid var(--authmw-input-border); border-radius: var(--authmw-radius);
  padding: 0.55rem 0.75rem; min-height: 2.625rem; width: 100%; margin: 0;
}
:where(.authmw-page input[aria-invalid=true]) { border-color: var(--authmw-error); box-shadow: 0 0 0 1px var(--authmw-error); }
:where(.authmw-page .authmw-password) { position: relative; }
:where(.authmw-page .authmw-password input) { padding-right: 4.5rem; }
:where(.authmw-page .authmw-field-error) { color: var(--authmw-error); font-size: 0.85rem; font-weight: 500; margin: 0; }
:where(.authmw-page .authmw-hint, .authmw-page small) { color: var(--authmw-muted); font-size: 0.875rem; }
:where(.authmw-page .authmw-intro) { color: var(--authmw-muted); }
:where(.authmw-page .authmw-quote) { margin: 0; padding: 0.5rem 0.8rem; border-left: 3px solid var(--authmw-input-border); overflow-wrap: anywhere; }
:where(.authmw-page .authmw-quote blockquote) { margin: 0.25rem 0 0; }

:where(.authmw-page button, .authmw-page .authmw-button) {
  display: inline-flex; align-items: center; justify-content: center; gap: 0.5rem;
  font: inherit; font-size: 0.95rem; font-weight: 600; line-height: 1.2; text-decoration: none; cursor: pointer;
  min-height: 2.625rem; padding: 0.55rem 1rem; border-radius: var(--authmw-radius);
  border: 1px solid var(--authmw-input-border); background: var(--authmw-surface); color: var(--authmw-text);
  letter-spacing: normal; text-transform: none; box-shadow: none; outline: none;
}
:where(.authmw-page button:hover, .authmw-page .authmw-button:hover) { background: var(--authmw-surface-muted); }
:where(.authmw-page .authmw-primary) { background: var(--authmw-accent); border-color: var(--authmw-accent); color: var(--authmw-accent-text); }
:where(.authmw-page .authmw-primary:hover) { background: color-mix(in srgb, var(--authmw-accent) 86%, var(--authmw-text)); }
:where(.authmw-page button:disabled) { opacity: 0.65; cursor: not-allowed; }
:where(.authmw-page button[aria-busy=true], .authmw-page [aria-busy=true] button[type=submit]:disabled) { cursor: progress; }
:where(.authmw-page .authmw-card .authmw-form > .authmw-primary, .authmw-page .authmw-card-body > .authmw-button) { width: 100%; }
:where(.authmw-page .authmw-password .authmw-toggle) {
  position: absolute; right: 0.3rem; top: 50%; transform: translateY(-50%);
  min-height: 2rem; padding: 0.2rem 0.6rem; font-size: 0.8rem; border-color: transparent; background: transparent; color: var(--authmw-accent);
}
:where(.authmw-page .authmw-password .authmw-toggle:hover) { background: var(--authmw-surface-muted); }
:where(.authmw-page .authmw-small) { min-height: 2rem; padding: 0.3rem 0.7rem; font-size: 0.85rem; }
:where(.authmw-page .authmw-danger) { background: var(--authmw-error); border-color: var(--authmw-error); color: var(--authmw-surface); }
:where(.authmw-page .authmw-danger-outline) { color: var(--authmw-error); border-color: var(--authmw-error); }
:where(.authmw-page .authmw-link-button) {
  border: none; background: none; padding: 0; min-height: 0; font-weight: 500; color: var(--authmw-accent);
  text-decoration: underline; text-underline-offset: 2px; justify-self: center;
}
:where(.authmw-page .authmw-link-button:hover) { background: none; }
:where(.authmw-page a) { color: var(--authmw-accent); text-underline-offset: 2px; }
:where(.authmw-page a:hover) { color: var(--authmw-accent); }
:where(.authmw-page a.authmw-button) { color: var(--authmw-text); text-decoration: none; }
:where(.authmw-page a.authmw-primary) { color: var(--authmw-accent-text); }
:where(.authmw-page .authmw-aside-link) { justify-self: end; font-size: 0.875rem; margin-top: -0.5rem; }
:where(.authmw-page :focus-visible) { outline: 2px solid var(--authmw-accent); outline-offset: 2px; }
:where(.authmw-page input:focus-visible) { outline-offset: 0; border-color: var(--authmw-accent); }
:where(.authmw-page .authmw-actions) { display: flex; flex-wrap: wrap; gap: 0.5rem; align-items: center; }
:where(.authmw-page .authmw-card .authmw-actions > *) { flex: 1 1 8rem; white-space: nowrap; }

:where(.authmw-page .authmw-error) {
  color: var(--authmw-error); background: var(--authmw-error-soft); border-radius: var(--authmw-radius);
  padding: 0.6rem 0.8rem; font-size: 0.9rem; font-weight: 500; margin: 0;
}
:where(.authmw-page .authmw-status) { color: var(--authmw-success); font-size: 0.9rem; font-weight: 500; margin: 0; }
:where(.authmw-page .authmw-notice) {
  color: var(--authmw-text); background: var(--authmw-success-soft); border-radius: var(--authmw-radius); padding: 0.75rem 0.9rem;
}
:where(.authmw-page .authmw-sr-only) {
  position: absolute; width: 1px; height: 1px; padding: 0; margin: -1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; border: 0;
}
:where(.authmw-page .authmw-badge) {
  display: inline-block; font-size: 0.75rem; font-weight: 560; line-height: 1.5; padding: 0 0.5rem;
  border: 1px solid var(--authmw-border); border-radius: 999px; color: var(--authmw-muted);
}
:where(.authmw-page .authmw-badge-ok) { color: var(--authmw-success); border-color: currentColor; }

:where(.authmw-page .authmw-methods) { display: grid; gap: 0.6rem; }
:where(.authmw-page .authmw-divider) {
  display: flex; align-items: center; gap: 0.75rem; color: var(--authmw-muted); font-size: 0.8rem; text-transform: uppercase; letter-spacing: 0.06em;
}
:where(.authmw-page .authmw-divider-line) { flex: 1; border-top: 1px solid var(--authmw-border); }
:where(.authmw-page .authmw-tabs) {
  display: grid; grid-auto-flow: column; grid-auto-columns: 1fr; gap: 0.25rem; padding: 0.25rem;
  background: var(--authmw-surface-muted); border-radius: var(--authmw-radius); margin-bottom: 1rem;
}
:where(.authmw-page .authmw-tabs [role=tab]) {
  min-height: 2.125rem; padding: 0.3rem 0.75rem; font-size: 0.875rem; border-color: transparent; background: transparent; color: var(--authmw-muted);
  border-radius: calc(var(--authmw-radius) - 2px);
}
:where(.authmw-page .authmw-tabs [role=tab][aria-selected=true]) {
  background: var(--authmw-surface); color: var(--authmw-text); box-shadow: 0 1px 2px rgb(0 0 0 / 12%);
}
:where(.authmw-page .authmw-team-name) { font-size: 1.25rem; text-align: center; }

:where(.authmw-page.authmw-page-settings) { padding: 0; align-items: stretch; }
:where(.authmw-page .authmw-settings) { width: 100%; max-width: 66rem; min-width: min(66rem, 100vw - 2rem); margin: 0 auto; padding: 0 1rem 4rem; }
:where(.authmw-page .authmw-topbar) {
  display: flex; align-items: center; justify-content: space-between; gap: 0.75rem; flex-wrap: wrap;
  padding: 0.75rem 0; border-bottom: 1px solid var(--authmw-border);
}
:where(.authmw-page .authmw-topbar .authmw-brand) { flex-direction: row; margin: 0; }
@media (max-width: 30rem) {
  :where(.authmw-page .authmw-topbar .authmw-brand) { display: none; }
}
:where(.authmw-page .authmw-back) { font-weight: 560; text-decoration: none; }
:where(.authmw-page .authmw-back:hover) { text-decoration: underline; }
:where(.authmw-page .authmw-settings-main h1) { font-size: 1.75rem; margin: 1.75rem 0 1.5rem; }
:where(.authmw-page .authmw-settings-grid) { display: grid; grid-template-columns: 13rem minmax(0, 1fr); gap: 2rem; align-items: start; }
:where(.authmw-page .authmw-settings-nav) { position: sticky; top: 1rem; }
:where(.authmw-page .authmw-settings-nav ul) { list-style: none; margin: 0; padding: 0; display: grid; gap: 0.15rem; }
:where(.authmw-page .authmw-settings-nav a) {
  display: block; padding: 0.45rem 0.75rem; border-radius: var(--authmw-radius); color: var(--authmw-text); text-decoration: none; font-size: 0.925rem;
}
:where(.authmw-page .authmw-settings-nav a:hover) { background: var(--authmw-surface-muted); }
:where(.authmw-page .authmw-settings-nav a[aria-current]) { background: var(--authmw-accent-soft); font-weight: 600; }
:where(.authmw-page .authmw-settings-sections) { display: grid; gap: 1.25rem; min-width: 0; }
:where(.authmw-page .authmw-section) {
  background: var(--authmw-surface); border: 1px solid var(--authmw-border); border-radius: calc(var(--authmw-radius) * 1.5);
  padding: 1.5rem; display: grid; gap: 1rem; scroll-margin-top: 1rem;
}
:where(.authmw-page .authmw-section:focus, .authmw-page .authmw-section > h2:focus) { outline: none; }
:where(.authmw-page .authmw-section > h2) { margin: 0; }
:where(.authmw-page #authmw-danger-zone) { border-color: color-mix(in srgb, var(--authmw-error) 45%, var(--authmw-border)); }
:where(.authmw-page .authmw-section .authmw-form) { max-width: 28rem; }
:where(.authmw-page .authmw-section .authmw-form > button[type=submit], .authmw-page .authmw-section > button) { justify-self: start; }
@media (max-width: 48rem) {
  :where(.authmw-page .authmw-settings-grid) { grid-template-columns: minmax(0, 1fr); gap: 1rem; }
  :where(.authmw-page .authmw-settings-nav) { position: static; }
  :where(.authmw-page .authmw-settings-nav ul) {
    display: flex; gap: 0.35rem; overflow-x: auto; overscroll-behavior-x: contain; scrollbar-width: thin; padding-bottom: 0.25rem;
  }
  :where(.authmw-page .authmw-settings-nav a) { white-space: nowrap; border: 1px solid var(--authmw-border); font-size: 0.875rem; padding: 0.3rem 0.65rem; }
  :where(.authmw-page .authmw-settings-nav li) { flex: none; }
  :where(.authmw-page .authmw-settings-main h1) { margin: 1.25rem 0 1rem; }
  :where(.authmw-page .authmw-section) { padding: 1.25rem 1rem; }
}
:where(.authmw-page .authmw-list) { list-style: none; margin: 0; padding: 0; display: grid; gap: 0.5rem; }
:where(.authmw-page .authmw-row) {
  display: flex; flex-wrap: wrap; align-items: center; justify-content: space-between; gap: 0.5rem;
  padding: 0.6rem 0.75rem; border: 1px solid var(--authmw-border); border-radius: var(--authmw-radius);
}
:where(.authmw-page .authmw-row-main) { display: flex; flex-wrap: wrap; align-items: center; gap: 0.4rem; min-width: 0; overflow-wrap: anywhere; }
:where(.authmw-page .authmw-row-title) { font-weight: 560; }
:where(.authmw-page .authmw-row-stack) { flex-direction: column; align-items: flex-start; gap: 0.15rem; }
:where(.authmw-page .authmw-section-placeholder) { min-height: 6rem; margin: 0; }
:where(.authmw-page .authmw-row-actions) { display: flex; flex-wrap: wrap; gap: 0.4rem; }
:where(.authmw-page .authmw-team) {
  display: grid; gap: 0.75rem; padding: 0.9rem; border: 1px solid var(--authmw-border); border-radius: var(--authmw-radius);
}
:where(.authmw-page .authmw-team > .authmw-row, .authmw-page .authmw-action-row[data-open=true] > .authmw-row) { border: none; padding: 0; }
:where(.authmw-page .authmw-profile) { display: grid; grid-template-columns: auto minmax(0, 1fr); gap: 1.25rem; align-items: start; }
@media (max-width: 30rem) {
  :where(.authmw-page .authmw-profile) { grid-template-columns: minmax(0, 1fr); }
}
:where(.authmw-page .authmw-avatar) {
  width: 4rem; height: 4rem; border-radius: 50%; object-fit: cover; display: inline-flex; align-items: center; justify-content: center;
  background: var(--authmw-accent-soft); color: var(--authmw-text); font-weight: 650; font-size: 1.25rem;
}
:where(.authmw-page .authmw-member-main) { flex-wrap: nowrap; gap: 0.6rem; }
:where(.authmw-page .authmw-member-main > .authmw-row-stack) { display: flex; min-width: 0; }
:where(.authmw-page .authmw-member-main .authmw-avatar) { width: 2.25rem; height: 2.25rem; font-size: 0.85rem; flex: none; }
:where(.authmw-page .authmw-member .authmw-avatar) { align-self: flex-start; }
:where(.authmw-page .authmw-team-part) { display: grid; gap: 0.6rem; }
:where(.authmw-page .authmw-team-part h3, .authmw-page .authmw-team-part p) { margin: 0; }
:where(.authmw-page summary) { cursor: pointer; font-weight: 560; padding: 0.25rem 0; }
:where(.authmw-page details[open] > summary) { margin-bottom: 0.5rem; }
:where(.authmw-page .authmw-picture-crop) { display: flex; flex-wrap: wrap; gap: 1rem; align-items: center; }
:where(.authmw-page .authmw-picture-preview) { width: 8rem; height: 8rem; border-radius: 50%; border: 1px solid var(--authmw-border); flex: none; }
:where(.authmw-page .authmw-picture-sliders) { display: grid; gap: 0.5rem; flex: 1 1 10rem; min-width: 0; }
:where(.authmw-page .authmw-slider input) { width: 100%; accent-color: var(--authmw-accent); }
:where(.authmw-page input[type=file]) { max-width: 100%; }
:where(.authmw-page .authmw-confirm) {
  display: grid; gap: 0.75rem; padding: 0.9rem; border: 1px solid var(--authmw-error); border-radius: var(--authmw-radius); background: var(--authmw-error-soft);
}
:where(.authmw-page .authmw-confirm .authmw-hint) { color: var(--authmw-text); }
:where(.authmw-page .authmw-action-row) { display: grid; gap: 0.75rem; }
:where(.authmw-page .authmw-action-row[data-open=true]) { padding: 0.6rem 0.75rem 0.9rem; border: 1px solid var(--authmw-border); border-radius: var(--authmw-radius); }
:where(.authmw-page .authmw-created) { display: grid; gap: 0.6rem; }
:where(.authmw-page .authmw-created p) { margin: 0; }
:where(.authmw-page .authmw-secret) {
  display: block; padding: 0.5rem 0.6rem; border-radius: var(--authmw-radius); border: 1px solid var(--authmw-input-border);
  background: var(--authmw-background); font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 0.85em;
  overflow-wrap: anywhere; user-select: all;
}
:where(.authmw-page .authmw-progress) { display: flex; align-items: center; justify-content: center; gap: 0.75rem; min-height: 2.625rem; color: var(--authmw-muted); }
:where(.authmw-page .authmw-spinner) {
  flex: none; width: 1.25rem; height: 1.25rem; border-radius: 50%; border: 2px solid var(--authmw-border); border-top-color: var(--authmw-accent);
}
@media (prefers-reduced-motion: no-preference) {
  :where(.authmw-page button, .authmw-page .authmw-button, .authmw-page input) { transition: background-color 0.12s, border-color 0.12s, box-shadow 0.12s; }
  :where(.authmw-page .authmw-spinner) { animation: authmw-spin 0.8s linear infinite; }
  :where(.authmw-page .authmw-app-name) { animation: authmw-fade 0.3s ease-out; }
}
@keyframes authmw-spin { to { transform: rotate(1turn); } }
@keyframes authmw-fade { from { opacity: 0; } }
`, "authmw-page");

/** The default stylesheet, rendered once per document however many pages use it (React 19). */
export function AuthStyles(): JSX.Element {
  return (
    <style href="authmw-default-styles" precedence="low">
      {DEFAULT_STYLES}
    </style>
  );
}
