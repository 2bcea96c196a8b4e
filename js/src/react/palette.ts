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
