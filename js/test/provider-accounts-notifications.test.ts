// Pure mapping of the provider-account and notification-preference models (the calls themselves
// are exercised against the local service by the browser tests).
import { describe, expect, it } from "vitest";
import { hasOtherSignInMethod, providerAccountFromWire, providerAccountUpdateToWire, type OAuthProviderAccount } from "../src/provider-accounts";
import { notificationPreferenceFromWire } from "../src/notification-preferences";

const wire = {
  id: "5a3c7f6e-2b1d-4c8e-9f0a-1b2c3d4e5f60",
  user_id: "u",
  provider_config_id: "google",
  type: "google",
  email: "ada@example.com",
  allow_sign_in: true,
  allow_connected_accounts: false,
};

describe("provider accounts", () => {
  it("maps the client tier's object, without an account id", () => {
    expect(providerAccountFromWire(wire)).toEqual({
      id: wire.id,
      providerConfigId: "google",
      type: "google",
      email: "ada@example.com",
      accountId: null,
      allowSignIn: true,
      allowConnectedAccounts: false,
    });
  });

  it("keeps an omitted e-mail as null and the server tier's account id", () => {
    const { email: _email, ...rest } = wire;
    expect(providerAccountFromWire({ ...rest, account_id: "1234" })).toMatchObject({ email: null, accountId: "1234" });
  });

  it("sends only the flags given", () => {
    expect(providerAccountUpdateToWire({ allowSignIn: false })).toEqual({ allow_sign_in: false });
    expect(providerAccountUpdateToWire({ allowConnectedAccounts: true })).toEqual({ allow_connected_accounts: true });
    expect(providerAccountUpdateToWire({})).toEqual({});
  });

  it("tells whether the user keeps a way to sign in", () => {
    const only = providerAccountFromWire(wire);
    const none = { hasPassword: false, otpAuthEnabled: false, passkeyAuthEnabled: false };
    expect(hasOtherSignInMethod(none, [only], only.id)).toBe(false);
    expect(hasOtherSignInMethod({ ...none, hasPassword: true }, [only], only.id)).toBe(true);
    expect(hasOtherSignInMethod({ ...none, otpAuthEnabled: true }, [only], only.id)).toBe(true);
    expect(hasOtherSignInMethod({ ...none, passkeyAuthEnabled: true }, [only], only.id)).toBe(true);
    const other: OAuthProviderAccount = { ...only, id: "other", type: "github", providerConfigId: "github" };
    expect(hasOtherSignInMethod(none, [only, other], only.id)).toBe(true);
    expect(hasOtherSignInMethod(none, [only, { ...other, allowSignIn: false }], only.id)).toBe(false);
  });
});

describe("notification preferences", () => {
  it("maps a preference item", () => {
    expect(
      notificationPreferenceFromWire({
        notification_category_id: "4f6f8873-3d04-46bd-8bef-18338b1a1b4c",
        notification_category_name: "Marketing",
        enabled: false,
        can_disable: true,
      }),
    ).toEqual({ categoryId: "4f6f8873-3d04-46bd-8bef-18338b1a1b4c", categoryName: "Marketing", enabled: false, canDisable: true });
  });
});
