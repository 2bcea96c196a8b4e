/**
 * The handler pages' default look: neutral, small, and easy to override. Every rule is wrapped
 * in :where() (zero specificity), so any selector of the app wins; colours, radius and font
 * come from CSS variables on .authmw-page (--authmw-accent, --authmw-text, --authmw-muted,
 * --authmw-border, --authmw-surface, --authmw-error, --authmw-radius, --authmw-font).
 */
export const DEFAULT_STYLES = `
:where(.authmw-page) {
  --authmw-accent: #2f5bd3; --authmw-accent-text: #fff; --authmw-text: #1c1f24; --authmw-muted: #5b6270;
  --authmw-border: #cdd2da; --authmw-surface: #fff; --authmw-error: #b3261e; --authmw-success: #1b7a3d;
  --authmw-radius: 8px; --authmw-font: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
  font-family: var(--authmw-font); color: var(--authmw-text); line-height: 1.5;
}
@media (prefers-color-scheme: dark) {
  :where(.authmw-page) {
    --authmw-accent: #7c9cf5; --authmw-accent-text: #10131a; --authmw-text: #e6e8ec; --authmw-muted: #a3a9b5;
    --authmw-border: #3a404b; --authmw-surface: #1b1f27; --authmw-error: #f2867e; --authmw-success: #6cc98c;
  }
}
:where(.authmw-page) :where(h1) { font-size: 1.6rem; font-weight: 650; margin: 0 0 1.25rem; }
:where(.authmw-page) :where(h2) { font-size: 1.15rem; font-weight: 600; margin: 1.75rem 0 0.75rem; }
:where(.authmw-page) :where(label) { font-size: 0.9rem; font-weight: 550; }
:where(.authmw-page) :where(input:not([type=checkbox]):not([type=radio]), select, textarea) {
  font: inherit; color: inherit; background: var(--authmw-surface); border: 1px solid var(--authmw-border);
  border-radius: var(--authmw-radius); padding: 0.55rem 0.7rem; width: 100%; box-sizing: border-box;
}
:where(.authmw-page) :where(input, select, textarea):focus-visible,
:where(.authmw-page) :where(button, a):focus-visible { outline: 2px solid var(--authmw-accent); outline-offset: 2px; }
:where(.authmw-page) :where(input[aria-invalid=true]) { border-color: var(--authmw-error); }
:where(.authmw-page) :where(button) {
  font: inherit; font-weight: 600; cursor: pointer; border-radius: var(--authmw-radius); padding: 0.55rem 1rem;
  border: 1px solid var(--authmw-accent); background: var(--authmw-accent); color: var(--authmw-accent-text);
}
:where(.authmw-page) :where(button[type=button]) { background: transparent; color: var(--authmw-accent); }
:where(.authmw-page) :where(button:disabled) { opacity: 0.6; cursor: progress; }
:where(.authmw-page) :where(.authmw-link-button) { border: none; padding: 0; background: none; font-weight: 500; text-decoration: underline; }
:where(.authmw-page) :where(a) { color: var(--authmw-accent); }
:where(.authmw-page) :where(.authmw-error) { color: var(--authmw-error); font-weight: 500; }
:where(.authmw-page) :where(.authmw-status) { color: var(--authmw-success); }
:where(.authmw-page) :where(.authmw-hint, small) { color: var(--authmw-muted); }
:where(.authmw-page) :where(.authmw-badge) {
  display: inline-block; font-size: 0.75rem; padding: 0 0.45rem; margin-left: 0.4rem;
  border: 1px solid var(--authmw-border); border-radius: 999px; color: var(--authmw-muted);
}
:where(.authmw-page) :where([role=tablist]) { display: flex; gap: 0.5rem; margin-bottom: 1rem; }
:where(.authmw-page) :where([role=tab][aria-selected=false]) { border-color: var(--authmw-border); color: var(--authmw-muted); }
:where(.authmw-page) :where(p) { margin: 0.75rem 0; }
:where(.authmw-page) :where(ul) { padding-left: 1.1rem; }
`;

/** The default stylesheet, rendered once per document however many pages use it (React 19). */
export function AuthStyles() {
  return (
    <style href="authmw-default-styles" precedence="low">
      {DEFAULT_STYLES}
    </style>
  );
}
