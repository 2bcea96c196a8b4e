// Contact channels of the signed-in user (service-api A5.7, flow 6.4).
import type { ApiContext } from "./api-context.js";
import { seg } from "./api-context.js";
import { CONTACT_CHANNEL_FIELDS, contactChannelFromWire } from "./team-models.js";
import {
  toWire,
  type ContactChannel,
  type ContactChannelCreate,
  type ContactChannelUpdate,
} from "./models.js";
import { HttpStatusError } from "./errors.js";
import { callbackUrl } from "./return-to.js";
import type { TokenProvider } from "./transport.js";

type Wire = Record<string, unknown>;

export interface ContactChannelsApi {
  /** GET /contact-channels?user_id=me, oldest first ([] when signed out, without a call). */
  list(): Promise<ContactChannel[]>;
  /** One of the user's addresses, or null. */
  get(channelId: string): Promise<ContactChannel | null>;
  /** Adds an e-mail; `usedForAuth: true` fails with ContactChannelAlreadyUsedForAuthBySomeoneElse when taken. */
  create(data: ContactChannelCreate): Promise<ContactChannel>;
  /** Changing the value resets its verification. */
  update(channelId: string, data: ContactChannelUpdate): Promise<ContactChannel>;
  delete(channelId: string): Promise<void>;
  /**
   * Sends the verification e-mail; its link goes to `callbackUrl` (default: {handler}/email-verification
   * on this origin). Throws EmailAlreadyVerified for a verified channel.
   */
  sendVerificationEmail(channelId: string, options?: { callbackUrl?: string }): Promise<void>;
}

/**
 * The calls, sent with `session`'s tokens: the app's session by default, the restricted session's
 * for the onboarding page (restricted-session.ts), which adds the address a user lacks.
 */
export function createContactChannelsApi(ctx: ApiContext, session: TokenProvider = ctx.session): ContactChannelsApi {
  const path = (id: string) => `/contact-channels/me/${seg(id)}`;
  // The primary e-mail and its verified flag are part of the user too.
  const changed = async () => {
    ctx.caches.contactChannels.invalidate();
    await ctx.refreshUser().catch(() => {});
  };
  return {
    async list() {
      if (!ctx.session.getState().refreshToken) return [];
      const { body } = await ctx.request<{ items: Wire[] }>({
        method: "GET",
        path: "/contact-channels?user_id=me",
        session,
      });
      return body.items.map(contactChannelFromWire);
    },
    async get(channelId) {
      try {
        return contactChannelFromWire((await ctx.request<Wire>({ method: "GET", path: path(channelId), session })).body);
      } catch (error) {
        if (error instanceof HttpStatusError && error.status === 404) return null; // plain "Contact channel not found."
        throw error;
      }
    },
    async create(data) {
      const { body } = await ctx.request<Wire>({
        method: "POST",
        path: "/contact-channels",
        body: { user_id: "me", ...toWire({ type: "email", ...data }, CONTACT_CHANNEL_FIELDS) },
        session,
      });
      await changed();
      return contactChannelFromWire(body);
    },
    async update(channelId, data) {
      const { body } = await ctx.request<Wire>({
        method: "PATCH",
        path: path(channelId),
        body: toWire({ ...data }, CONTACT_CHANNEL_FIELDS),
        session,
      });
      await changed();
      return contactChannelFromWire(body);
    },
    async delete(channelId) {
      await ctx.request({ method: "DELETE", path: path(channelId), session });
      await changed();
    },
    async sendVerificationEmail(channelId, options = {}) {
      const callback_url = callbackUrl("sendVerificationEmail", ctx.urls.emailVerification, options.callbackUrl);
      await ctx.request({
        method: "POST",
        path: `${path(channelId)}/send-verification-code`,
        body: { callback_url },
        session,
      });
    },
  };
}
