import type { AccountSection, SectionProps } from "./section";

/**
 * SLOT for the "Passkeys" section (list, add, remove passkeys). Placeholder: hidden until it is
 * built here; then `shown` becomes e.g. `({ config }) => Boolean(config?.passkeyEnabled)`.
 */
function Passkeys(_props: SectionProps) {
  return null;
}

export const passkeysSection: AccountSection = {
  id: "passkeys",
  title: (m) => m.passkeysSection,
  shown: () => false,
  Component: Passkeys,
};
