import type { ReactNode } from "react";

// Simple marks of the OAuth providers, drawn for this package (shapes and letters in the
// providers' colours, 24 x 24). Black marks use currentColor, so they follow the button's text
// in light and dark mode. A module of its own, loaded after the buttons render (they keep the
// logo's space meanwhile), so the sign-in page's first load does not carry them.

const stroke = (color: string, d: string, width = 3) => <path d={d} fill="none" stroke={color} strokeWidth={width} />;

export const PROVIDER_LOGOS: Record<string, ReactNode> = {
  google: (
    <>
      {stroke("#EA4335", "M17.75 7.18A7.5 7.5 0 0 0 6.25 7.18")}
      {stroke("#FBBC05", "M6.25 7.18A7.5 7.5 0 0 0 6.25 16.82")}
      {stroke("#34A853", "M6.25 16.82A7.5 7.5 0 0 0 17.75 16.82")}
      {stroke("#4285F4", "M17.75 16.82A7.5 7.5 0 0 0 19.5 12H12")}
    </>
  ),
  github: (
    <path
      fill="currentColor"
      fillRule="evenodd"
      d="M12 2a10 10 0 1 0 0 20 10 10 0 0 0 0-20zM7 6l2.5 2.5h5L17 6v6a5 5 0 0 1-3 4.6V20h-4v-3.4A5 5 0 0 1 7 12z"
    />
  ),
  microsoft: (
    <>
      <path fill="#F25022" d="M3 3h8.5v8.5H3z" />
      <path fill="#7FBA00" d="M12.5 3H21v8.5h-8.5z" />
      <path fill="#00A4EF" d="M3 12.5h8.5V21H3z" />
      <path fill="#FFB900" d="M12.5 12.5H21V21h-8.5z" />
    </>
  ),
  spotify: (
    <>
      <circle cx="12" cy="12" r="10" fill="#1DB954" />
      {stroke("#000", "M6.5 9.5q6-2 11 .8", 2)}
      {stroke("#000", "M7 12.8q5-1.6 9 .7", 1.7)}
      {stroke("#000", "M7.6 15.8q4-1.1 7 .6", 1.4)}
    </>
  ),
  facebook: (
    <>
      <circle cx="12" cy="12" r="10" fill="#1877F2" />
      <path fill="#fff" d="M13.2 22v-7h2.4l.4-3h-2.8v-1.8c0-.9.3-1.4 1.5-1.4H16V6.2a14 14 0 0 0-2.2-.2c-2.3 0-3.6 1.3-3.6 3.8V12H7.8v3h2.4v7z" />
    </>
  ),
  discord: (
    <>
      <rect x="2" y="4" width="20" height="16" rx="6" fill="#5865F2" />
      <circle cx="9" cy="12.5" r="1.8" fill="#fff" />
      <circle cx="15" cy="12.5" r="1.8" fill="#fff" />
    </>
  ),
  gitlab: <path fill="#FC6D26" d="M12 21 2.5 13.5 5 3l3 7.5h8L19 3l2.5 10.5z" />,
  bitbucket: (
    <path fill="#2684FF" fillRule="evenodd" d="M2.5 3.5h19L18.8 20.5H5.2zM9.6 9.5l.8 5h3.2l.8-5z" />
  ),
  linkedin: (
    <>
      <rect x="2" y="2" width="20" height="20" rx="3" fill="#0A66C2" />
      <path fill="#fff" d="M5.5 9.5h2.8V18H5.5zM6.9 5.2a1.6 1.6 0 1 1 0 3.2 1.6 1.6 0 0 1 0-3.2zM10 9.5h2.7v1.2c.5-.9 1.6-1.4 2.8-1.4 2.3 0 3 1.4 3 3.6V18h-2.8v-4.5c0-1.1-.3-1.8-1.3-1.8s-1.6.7-1.6 1.8V18H10z" />
    </>
  ),
  apple: (
    <path
      fill="currentColor"
      d="M12 7.6c-1.8-1.4-6.5-1.3-6.5 4.2 0 4 2.8 9.4 6.5 7.6 3.7 1.8 6.5-3.6 6.5-7.6 0-5.5-4.7-5.6-6.5-4.2zM12.2 6.4C12.3 4.4 13.8 3 15.6 3c-.1 2-1.6 3.4-3.4 3.4z"
    />
  ),
  x: stroke("currentColor", "M5 4l14 16M19 4 5 20", 2.4),
  twitch: (
    <>
      <path fill="#9146FF" d="M4.5 3H20v10.5L15.5 18h-3.5l-3 3v-3H4.5z" />
      <path fill="#fff" d="M10.5 7.5h1.8v4.5h-1.8zM14.5 7.5h1.8v4.5h-1.8z" />
    </>
  ),
};
