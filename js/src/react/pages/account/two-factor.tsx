import type { AccountSection, SectionProps } from "./section";

/**
 * SLOT for the "Two-factor authentication" section (TOTP set-up and removal). Placeholder:
 * hidden until it is built here.
 */
function TwoFactor(_props: SectionProps) {
  return null;
}

export const twoFactorSection: AccountSection = {
  id: "two-factor",
  title: (m) => m.twoFactorSection,
  shown: () => false,
  Component: TwoFactor,
};
