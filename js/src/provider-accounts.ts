// The signed-in user's OAuth provider accounts (API 2.8): each link between the user and an
// account at a provider, with whether it signs the user in and whether the app may use it as a
// connected account; change the two flags, unlink one. A 2.7 service has no such route; list()
// then answers null, so a page can leave the part out.
import type { ApiContext } from "./api-context.js";
import { seg } from "./api-context.js";
import { HttpStatusError } from "./http-errors.js";
import type { Wire } from "./models.js";

/** One link between the signed-in user and an account at an OAuth provider. */
export interface OAuthProviderAccount {
  /** The link's id (not the provider's): what update() and remove() take. */
  id: string;
  /** The project's provider id, e.g. "google" (the `id` of the user's `oauthProviders`). */
  providerConfigId: string;
  /** The provider type, e.g. "google", "github". */
  type: string;
  /** The account's e-mail address at the provider, when known. */
  email: string | null;
  /** The provider-side account id; only the server tier sees it (null here). */
  accountId: string | null;
  /** The user can sign in with this account. */
  allowSignIn: boolean;
  /** The app may ask for this account's provider access token (a connected account). */
  allowConnectedAccounts: boolean;
}

export interface OAuthProviderAccountUpdate {
  allowSignIn?: boolean;
  allowConnectedAccounts?: boolean;
}

export interface OAuthProviderAccountsApi {
  /**
   * GET /oauth-providers?user_id=me, oldest first; [] when signed out (without a call); null when
   * the service has no provider accounts (API 2.7 answers 404 or 405).
   */
  list(): Promise<OAuthProviderAccount[] | null>;
  /**
   * Turns sign-in or the connected-account use of one link on or off. Turning sign-in on when
   * another account of the same provider already signs the user in is refused (400), as is an
   * account another user signs in with (OAuthProviderAccountIdAlreadyUsedForSignIn).
   */
  update(id: string, update: OAuthProviderAccountUpdate): Promise<OAuthProviderAccount>;
  /**
   * Unlinks the account, and with it its sign-in method. The service does not check that the
   * user keeps a way to sign in: see hasOtherSignInMethod() before offering it.
   */
  remove(id: string): Promise<void>;
}

/** The API's provider account object (client tier) as the package's model. */
export const providerAccountFromWire = (w: Wire): OAuthProviderAccount => ({
  id: w.id,
  providerConfigId: w.provider_config_id,
  type: w.type ?? w.provider_config_id,
  email: w.email ?? null,
  accountId: w.account_id ?? null,
  allowSignIn: Boolean(w.allow_sign_in),
  allowConnectedAccounts: Boolean(w.allow_connected_accounts),
});

/** The request body of an update: only the flags given. */
export const providerAccountUpdateToWire = (update: OAuthProviderAccountUpdate): Record<string, boolean> => {
  const body: Record<string, boolean> = {};
  if (update.allowSignIn !== undefined) body.allow_sign_in = update.allowSignIn;
  if (update.allowConnectedAccounts !== undefined) body.allow_connected_accounts = update.allowConnectedAccounts;
  return body;
};

export { hasOtherSignInMethod, type OtherSignInMethods } from "./account-rules.js";

export function createProviderAccountsApi(ctx: ApiContext): OAuthProviderAccountsApi {
  const changed = async () => {
    // The user's `oauthProviders` follow the links.
    await ctx.refreshUser();
  };
  return {
    async list() {
      if (!ctx.session.getState().refreshToken) return [];
      try {
        const { body } = await ctx.request<{ items: Wire[] }>({ method: "GET", path: "/oauth-providers?user_id=me", session: ctx.session });
        return body.items.map(providerAccountFromWire);
      } catch (error) {
        if (error instanceof HttpStatusError && (error.status === 404 || error.status === 405)) return null;
        throw error;
      }
    },
    async update(id, update) {
      const { body } = await ctx.request<Wire>({
        method: "PATCH",
        path: `/oauth-providers/me/${seg(id)}`,
        body: providerAccountUpdateToWire(update),
        session: ctx.session,
      });
      await changed();
      return providerAccountFromWire(body);
    },
    async remove(id) {
      await ctx.request({ method: "DELETE", path: `/oauth-providers/me/${seg(id)}`, session: ctx.session });
      await changed();
    },
  };
}
