import type { ColorScheme } from "../handler-options.js";
import { DARK, LIGHT, revertHost, ROOT_RESET, scopeRules } from "../palette.js";
import type { JSX } from "react";

/**
 * The components' stylesheet: the handler pages' palettes and variables on `.authmw-ui` (the
 * root of every component), so an app themes pages and components with the same variables.
 * Every rule is scoped under .authmw-ui with the specificity of two classes (see scopeRules): a host
 * page's element rules leave the components' look alone; the app themes them through the variables.
 */
export const COMPONENT_STYLES = scopeRules(`
:where(.authmw-ui) {${LIGHT} ${ROOT_RESET}
  --authmw-radius: 8px; --authmw-font: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", sans-serif;
  position: relative; display: inline-flex; align-items: center; gap: 0.375rem; vertical-align: middle;
  font-family: var(--authmw-font); font-size: 0.9375rem; line-height: 1.4; color: var(--authmw-text);
}
@media (prefers-color-scheme: dark) {
  :where(.authmw-ui:not([data-color-scheme=light])) {${DARK}
  }
}
:where(.authmw-ui[data-color-scheme=dark]) {${DARK}
}
${revertHost("authmw-ui")}
:where(.authmw-ui *) { box-sizing: border-box; }
:where(.authmw-ui :focus-visible) { outline: 2px solid var(--authmw-accent); outline-offset: 2px; }
:where(.authmw-ui .authmw-sr-only) {
  position: absolute; width: 1px; height: 1px; padding: 0; margin: -1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; border: 0;
}
:where(.authmw-ui .authmw-avatar) {
  width: 2rem; height: 2rem; flex: none; border-radius: 50%; object-fit: cover; overflow: hidden;
  display: inline-flex; align-items: center; justify-content: center;
  background: var(--authmw-accent-soft); color: var(--authmw-text); font-weight: 650; font-size: 0.8125rem; letter-spacing: 0.02em;
}
:where(.authmw-ui .authmw-avatar-large) { width: 2.5rem; height: 2.5rem; font-size: 0.95rem; }
:where(.authmw-ui .authmw-avatar-small) { width: 1.5rem; height: 1.5rem; font-size: 0.6875rem; }
:where(.authmw-ui .authmw-placeholder) { background: var(--authmw-surface-muted); }
:where(.authmw-ui .authmw-trigger) {
  display: inline-flex; align-items: center; justify-content: center; min-width: 2.75rem; min-height: 2.75rem; padding: 0.25rem;
  border: 1px solid transparent; border-radius: 999px; background: transparent; color: inherit; font: inherit; cursor: pointer;
}
:where(.authmw-ui .authmw-trigger:hover, .authmw-ui .authmw-trigger[aria-expanded=true]) { background: var(--authmw-surface-muted); border-color: var(--authmw-border); }
:where(.authmw-ui .authmw-popover) {
  position: absolute; top: calc(100% + 0.375rem); right: 0; z-index: 50;
  width: max-content; min-width: 16rem; max-width: min(20rem, calc(100vw - 1rem));
  background: var(--authmw-surface); color: var(--authmw-text); border: 1px solid var(--authmw-border);
  border-radius: calc(var(--authmw-radius) * 1.5); box-shadow: var(--authmw-shadow); padding: 0.375rem; text-align: left;
}
:where(.authmw-ui .authmw-menu-button) { position: relative; display: inline-flex; }
:where(.authmw-ui .authmw-popover:focus) { outline: none; }
:where(.authmw-ui .authmw-popover-start) { right: auto; left: 0; }
:where(.authmw-ui .authmw-menu-header) {
  display: flex; align-items: center; gap: 0.75rem; padding: 0.5rem 0.625rem 0.75rem; margin-bottom: 0.375rem;
  border-bottom: 1px solid var(--authmw-border); min-width: 0;
}
:where(.authmw-ui .authmw-menu-who) { display: grid; min-width: 0; }
:where(.authmw-ui .authmw-menu-name) { font-weight: 600; overflow-wrap: anywhere; }
:where(.authmw-ui .authmw-menu-email) { color: var(--authmw-muted); font-size: 0.8125rem; overflow-wrap: anywhere; }
:where(.authmw-ui [role=menu], .authmw-ui [role=group]) { display: grid; gap: 1px; }
:where(.authmw-ui .authmw-menu-item) {
  display: flex; align-items: center; gap: 0.625rem; width: 100%; min-height: 2.5rem; margin: 0; padding: 0.45rem 0.625rem;
  border: none; border-radius: var(--authmw-radius); background: transparent; color: var(--authmw-text);
  font: inherit; text-align: left; text-decoration: none; cursor: pointer;
}
:where(.authmw-ui .authmw-menu-item:hover, .authmw-ui .authmw-menu-item:focus) { background: var(--authmw-surface-muted); }
:where(.authmw-ui .authmw-menu-item:focus-visible) { outline-offset: -2px; }
:where(.authmw-ui .authmw-menu-item:disabled) { cursor: progress; opacity: 0.65; }
:where(.authmw-ui .authmw-menu-item svg) { flex: none; color: var(--authmw-muted); }
:where(.authmw-ui .authmw-menu-item .authmw-check) { margin-left: auto; color: var(--authmw-accent); }
:where(.authmw-ui .authmw-menu-item-label) { min-width: 0; overflow-wrap: anywhere; }
:where(.authmw-ui .authmw-menu-label) {
  padding: 0.375rem 0.625rem 0.25rem; font-size: 0.75rem; font-weight: 600; color: var(--authmw-muted);
  text-transform: uppercase; letter-spacing: 0.05em;
}
:where(.authmw-ui [role=separator]) { border-top: 1px solid var(--authmw-border); margin: 0.375rem 0; }
:where(.authmw-ui select, .authmw-ui input) {
  font: inherit; color: var(--authmw-text); background: var(--authmw-surface); margin: 0;
  border: 1px solid var(--authmw-input-border); border-radius: var(--authmw-radius); min-height: 2.5rem; padding: 0.4rem 0.75rem;
}
:where(.authmw-ui select) { max-width: min(14rem, 45vw); text-overflow: ellipsis; cursor: pointer; }
:where(.authmw-ui input) { width: 100%; }
:where(.authmw-ui input[aria-invalid=true]) { border-color: var(--authmw-error); box-shadow: 0 0 0 1px var(--authmw-error); }
:where(.authmw-ui .authmw-ui-button) {
  display: inline-flex; align-items: center; justify-content: center; gap: 0.375rem; min-height: 2.5rem; min-width: 2.5rem; padding: 0.4rem 0.75rem;
  font: inherit; font-size: 0.875rem; font-weight: 600; line-height: 1.2; cursor: pointer; text-decoration: none;
  border: 1px solid var(--authmw-input-border); border-radius: var(--authmw-radius); background: var(--authmw-surface); color: var(--authmw-text);
}
:where(.authmw-ui .authmw-ui-button:hover) { background: var(--authmw-surface-muted); }
:where(.authmw-ui .authmw-ui-button:disabled) { opacity: 0.65; cursor: progress; }
:where(.authmw-ui .authmw-ui-primary) { background: var(--authmw-accent); border-color: var(--authmw-accent); color: var(--authmw-accent-text); }
:where(.authmw-ui .authmw-ui-primary:hover) { background: color-mix(in srgb, var(--authmw-accent) 86%, var(--authmw-text)); }
:where(.authmw-ui .authmw-team-trigger) {
  gap: 0.5rem; border-radius: var(--authmw-radius); padding: 0.25rem 0.5rem; min-width: 0; max-width: min(14rem, 36vw);
  border-color: var(--authmw-border); font-size: 0.875rem; font-weight: 560;
}
:where(.authmw-ui .authmw-team-trigger svg) { flex: none; color: var(--authmw-muted); }
:where(.authmw-ui .authmw-team-trigger-label) { min-width: 0; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
:where(.authmw-ui .authmw-team-switcher) { min-width: 0; }
:where(.authmw-ui .authmw-team-form) { display: grid; gap: 0.625rem; padding: 0.875rem; }
:where(.authmw-ui .authmw-team-form label) { font-size: 0.875rem; font-weight: 560; }
:where(.authmw-ui .authmw-team-form-actions) { display: flex; gap: 0.5rem; justify-content: flex-end; }
:where(.authmw-ui .authmw-ui-error) { color: var(--authmw-error); font-size: 0.8125rem; font-weight: 500; margin: 0; }
:where(.authmw-ui .authmw-menu-error) { display: block; padding: 0.25rem 0.625rem 0.375rem; }
:where(.authmw-ui .authmw-ui-hint) { color: var(--authmw-muted); font-size: 0.875rem; }
@media (prefers-reduced-motion: no-preference) {
  :where(.authmw-ui button, .authmw-ui a, .authmw-ui select) { transition: background-color 0.12s, border-color 0.12s; }
}
`, "authmw-ui");

/** The components' stylesheet, rendered once per document however many components use it (React 19). */
export function ComponentStyles(): JSX.Element {
  return (
    <style href="authmw-component-styles" precedence="low">
      {COMPONENT_STYLES}
    </style>
  );
}

/** The root attributes of a component: its class, and the palette when fixed. */
export function rootProps(className: string, extra: string | undefined, colorScheme: ColorScheme | undefined) {
  return {
    className: extra ? `authmw-ui ${className} ${extra}` : `authmw-ui ${className}`,
    "data-color-scheme": colorScheme && colorScheme !== "system" ? colorScheme : undefined,
  };
}

/** What every styled component takes besides its own props. */
export interface ComponentStyleProps {
  /** "light" or "dark" fix the palette; "system" (default) follows prefers-color-scheme. */
  colorScheme?: ColorScheme;
  /** Added to the component's root element (which has the class `authmw-ui`). */
  className?: string;
}
