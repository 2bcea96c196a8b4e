import type { AccountSection, SectionProps } from "./section";

/**
 * SLOT for the "Connected accounts" section (OAuth providers linked to the user: list, connect,
 * disconnect). Placeholder: hidden until it is built here.
 */
function ConnectedAccounts(_props: SectionProps) {
  return null;
}

export const connectedAccountsSection: AccountSection = {
  id: "connected-accounts",
  title: (m) => m.connectedAccountsSection,
  shown: () => false,
  Component: ConnectedAccounts,
};
