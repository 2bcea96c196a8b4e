// Rules of the account settings that the sections use and the client modules share: a module
// with no run-time imports, so a section that loads on demand can import it without pulling
// anything the package's index re-exports into an app's first load.
import type { OAuthProviderAccount } from "./provider-accounts.js";

/** The Transactional category's id (fixed by the service): it cannot be turned off. */
export const TRANSACTIONAL_CATEGORY_ID = "7bb82d33-2f54-4a3d-9d23-82739e0d66ef";
/** The Marketing category's id (fixed by the service). */
export const MARKETING_CATEGORY_ID = "4f6f8873-3d04-46bd-8bef-18338b1a1b4c";

/** What a user signs in with besides their OAuth provider accounts. */
export interface OtherSignInMethods {
  hasPassword: boolean;
  otpAuthEnabled: boolean;
  passkeyAuthEnabled: boolean;
}

/**
 * Whether the user keeps a way to sign in without `id`'s sign-in: a password, a one-time code
 * by e-mail, a passkey, or another provider account that signs in.
 */
export function hasOtherSignInMethod(user: OtherSignInMethods, accounts: readonly OAuthProviderAccount[], id: string): boolean {
  if (user.hasPassword || user.otpAuthEnabled || user.passkeyAuthEnabled) return true;
  return accounts.some((account) => account.id !== id && account.allowSignIn);
}

