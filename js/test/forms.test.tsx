// Form behaviours of the handler pages (empty submit, password toggle, focus, progress), the
// pages' configuration awareness, the messages table and the sentence of every known error a
// page can show (jsdom).
import { cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { MemoryRouter, Route, Routes } from "react-router";
import { afterEach, describe, expect, it, vi } from "vitest";
import * as errors from "../src/errors";
import { type KnownError } from "../src/core";
import { ConnectionError, HttpStatusError } from "../src/errors";
import { AuthHandler, AuthProvider, DEFAULT_MESSAGES, describeError, type Messages } from "../src/index";
import { describeCodeError } from "../src/react/messages";
import type { ProjectConfig } from "../src/models";
import { AuthProviderForTesting } from "../src/testing";
import { BASE_URL, fakeFetch, jsonResponse, knownErrorResponse, PROJECT_ID, testClient } from "./helpers";

afterEach(cleanup);

function renderHandler(
  path: string,
  options: { config?: Partial<ProjectConfig>; messages?: Partial<Messages>; signedIn?: boolean; colorScheme?: "light" | "dark" } = {},
) {
  return render(
    <MemoryRouter initialEntries={[path]}>
      <AuthProviderForTesting
        user={options.signedIn ? { primaryEmail: "ada@example.com", displayName: "Ada" } : null}
        projectConfig={options.config}
      >
        <Routes>
          <Route path="/handler/*" element={<AuthHandler messages={options.messages} colorScheme={options.colorScheme} />} />
          <Route path="*" element={<p>app page</p>} />
        </Routes>
      </AuthProviderForTesting>
    </MemoryRouter>,
  );
}

/** The texts of the messages under a field (its aria-describedby). */
const fieldMessage = (input: HTMLElement) =>
  (input.getAttribute("aria-describedby") ?? "")
    .split(" ")
    .map((id) => document.getElementById(id)?.textContent ?? "")
    .join(" ")
    .trim();

describe("form behaviours", () => {
  it("an empty submit marks every empty field with its own message and focuses the first", async () => {
    renderHandler("/handler/sign-in");
    const form = await screen.findByTestId("sign-in-form");
    expect(form.hasAttribute("novalidate")).toBe(true); // our messages, not only the browser's bubble
    fireEvent.submit(form);
    const email = screen.getByLabelText("E-mail");
    const password = screen.getByLabelText("Password");
    await waitFor(() => expect(fieldMessage(email)).toBe("Enter your e-mail address."));
    expect(fieldMessage(password)).toBe("Enter your password.");
    expect(email.getAttribute("aria-invalid")).toBe("true");
    expect(password.getAttribute("aria-invalid")).toBe("true");
    await waitFor(() => expect(document.activeElement).toBe(email));

    // Fixing the first field moves the focus to the next error on the next submit.
    fireEvent.change(email, { target: { value: "ada@example.com" } });
    fireEvent.submit(form);
    await waitFor(() => expect(document.activeElement).toBe(password));
    expect(email.getAttribute("aria-invalid")).toBeNull();
    expect(fieldMessage(email)).toBe("");
  });

  it("a malformed e-mail address is named as such", async () => {
    renderHandler("/handler/forgot-password");
    const email = await screen.findByLabelText("E-mail");
    fireEvent.change(email, { target: { value: "ada@example" } });
    fireEvent.submit(screen.getByTestId("forgot-password-form"));
    await waitFor(() => expect(fieldMessage(email)).toBe("Enter an e-mail address such as name@example.com."));
    expect(screen.queryByTestId("forgot-password-sent")).toBeNull();
  });

  it("a sign-up password is checked for a new password, and the code of the TOTP prompt for its format", async () => {
    renderHandler("/handler/sign-up");
    fireEvent.submit(await screen.findByTestId("sign-up-form"));
    await waitFor(() => expect(fieldMessage(screen.getByLabelText("Password"))).toBe("Choose a new password."));
    expect(screen.getByLabelText("Password").getAttribute("autocomplete")).toBe("new-password");
  });

  it("the password toggle shows and hides the password, and says which it does", async () => {
    renderHandler("/handler/sign-in");
    const password = await screen.findByLabelText("Password");
    const toggle = screen.getByRole("button", { name: "Show password" });
    expect(password.getAttribute("type")).toBe("password");
    expect(toggle.getAttribute("aria-pressed")).toBe("false");
    expect(toggle.getAttribute("aria-controls")).toBe(password.id);
    expect(toggle.getAttribute("type")).toBe("button"); // never submits the form
    fireEvent.click(toggle);
    expect(password.getAttribute("type")).toBe("text");
    expect(screen.getByRole("button", { name: "Hide password" }).getAttribute("aria-pressed")).toBe("true");
    fireEvent.click(screen.getByRole("button", { name: "Hide password" }));
    expect(password.getAttribute("type")).toBe("password");
  });

  it("the submit button is disabled with its progress text while the call runs", async () => {
    let answer: ((response: Response) => void) | undefined;
    const f = fakeFetch((call) =>
      call.url.endsWith("/projects/current")
        ? jsonResponse({ id: PROJECT_ID, display_name: "Demo", config: { sign_up_enabled: true, credential_enabled: true } })
        : new Promise<Response>((resolve) => (answer = resolve)),
    );
    const client = testClient(f.fetch);
    render(
      <MemoryRouter initialEntries={["/handler/sign-in"]}>
        <AuthProvider projectId={PROJECT_ID} baseUrl={BASE_URL} client={client} redirectMethod="router">
          <Routes>
            <Route path="/handler/*" element={<AuthHandler />} />
          </Routes>
        </AuthProvider>
      </MemoryRouter>,
    );
    fireEvent.change(await screen.findByLabelText("E-mail"), { target: { value: "ada@example.com" } });
    fireEvent.change(screen.getByLabelText("Password"), { target: { value: "wrong" } });
    fireEvent.submit(screen.getByTestId("sign-in-form"));
    const button = await screen.findByRole("button", { name: "Signing in…" });
    expect((button as HTMLButtonElement).disabled).toBe(true);
    expect(screen.getByTestId("sign-in-form").getAttribute("aria-busy")).toBe("true");
    await waitFor(() => expect(answer).toBeTypeOf("function")); // the sign-in call went out (its module loads first)
    answer!(knownErrorResponse("EMAIL_PASSWORD_MISMATCH", 400));
    expect((await screen.findByRole("alert")).textContent).toBe("Wrong e-mail or password.");
    expect((screen.getByRole("button", { name: "Sign in" }) as HTMLButtonElement).disabled).toBe(false);
  });

  it("Escape closes the account deletion confirmation and gives the focus back", async () => {
    renderHandler("/handler/account-settings/danger-zone", { signedIn: true, config: { clientUserDeletionEnabled: true } });
    fireEvent.click(await screen.findByTestId("delete-account"));
    const confirm = screen.getByTestId("delete-account-confirm");
    await waitFor(() => expect(document.activeElement).toBe(confirm));
    fireEvent.keyDown(confirm, { key: "Escape" });
    await waitFor(() => expect(document.activeElement).toBe(screen.getByTestId("delete-account")));
    expect(screen.queryByTestId("delete-account-confirm")).toBeNull();
  });
});

describe("pages follow the project's configuration", () => {
  it("sign-up explains that it is closed, and sign-in stops offering it", async () => {
    renderHandler("/handler/sign-up", { config: { signUpEnabled: false } });
    expect((await screen.findByTestId("sign-up-closed")).textContent).toBe(
      "Test project is not taking new sign-ups. If you already have an account, sign in.",
    );
    expect(screen.queryByTestId("sign-up-form")).toBeNull();
    expect(screen.getByRole("link", { name: "Sign in" }).getAttribute("href")).toBe("/handler/sign-in");
    cleanup();
    renderHandler("/handler/sign-in", { config: { signUpEnabled: false } });
    await screen.findByTestId("sign-in-form");
    expect(screen.queryByRole("link", { name: "Create an account" })).toBeNull();
  });

  it("a method the project has off is not shown", async () => {
    renderHandler("/handler/sign-in", { config: { credentialEnabled: false, magicLinkEnabled: true } });
    await screen.findByTestId("magic-link-form");
    expect(screen.queryByTestId("sign-in-form")).toBeNull();
    expect(screen.queryByRole("tab")).toBeNull();
    expect(screen.queryByRole("separator")).toBeNull();
    cleanup();
    renderHandler("/handler/sign-in", { config: { credentialEnabled: true, magicLinkEnabled: true } });
    expect((await screen.findAllByRole("tab")).map((tab) => tab.textContent)).toEqual(["Password", "E-mail link"]);
    cleanup();
    renderHandler("/handler/sign-in", { config: { credentialEnabled: false, magicLinkEnabled: false } });
    expect((await screen.findByText(DEFAULT_MESSAGES.noMethodsEnabled)).getAttribute("role")).toBe("status");
  });

  it("account settings lists its sections in a navigation, with a way back to the app and sign-out", async () => {
    renderHandler("/handler/account-settings", { signedIn: true, config: { clientUserDeletionEnabled: true } });
    const nav = await screen.findByRole("navigation", { name: "Account settings sections" });
    // Sessions and Notifications show once the service said it has them (asked once per user)
    await waitFor(() =>
      expect(within(nav).getAllByRole("link").map((link) => link.textContent)).toEqual([
        "Profile",
        "E-mail addresses",
        "Password",
        "Two-factor authentication",
        "Sessions",
        "Notifications",
        "Teams",
        "Danger zone",
      ]),
    );
    const links = within(nav).getAllByRole("link");
    // one route per section (deep links; back and forward work)
    for (const link of links) expect(link.getAttribute("href")).toMatch(/^\/handler\/account-settings\/[a-z-]+$/);
    expect(screen.getByTestId("back-to-app").getAttribute("href")).toBe("/");
    fireEvent.click(screen.getByTestId("settings-sign-out"));
    await waitFor(() => expect(screen.getByText("app page")).toBeTruthy());
  });

  it("the profile takes an image URL and checks it is one", async () => {
    renderHandler("/handler/account-settings", { signedIn: true });
    fireEvent.click(await screen.findByTestId("profile-open"));
    const url = await screen.findByLabelText("Profile image URL");
    fireEvent.change(url, { target: { value: "not a url" } });
    fireEvent.submit(screen.getByTestId("profile-form"));
    await waitFor(() => expect(fieldMessage(url)).toContain("Enter a full URL starting with https://."));
    fireEvent.change(url, { target: { value: "https://example.com/ada.png" } });
    fireEvent.submit(screen.getByTestId("profile-form"));
    expect((await screen.findByRole("status")).textContent).toBe("Saved.");
    expect((await screen.findByTestId("avatar-image")).getAttribute("src")).toBe("https://example.com/ada.png");
  });

  it("colorScheme fixes the palette on the page (default: the system's)", async () => {
    renderHandler("/handler/sign-in", { colorScheme: "dark" });
    expect(document.querySelector(".authmw-page")!.getAttribute("data-color-scheme")).toBe("dark");
    cleanup();
    renderHandler("/handler/sign-in");
    expect(document.querySelector(".authmw-page")!.getAttribute("data-color-scheme")).toBe("system");
  });
});

describe("the messages table", () => {
  it("an app replaces any text with the messages prop, errors included", async () => {
    renderHandler("/handler/sign-in", {
      messages: { signInTitle: "Anmelden", email: "E-Mail-Adresse", emailRequired: "Bitte E-Mail eingeben." },
    });
    expect(screen.getByRole("heading", { name: "Anmelden" })).toBeTruthy();
    const email = await screen.findByLabelText("E-Mail-Adresse");
    fireEvent.submit(screen.getByTestId("sign-in-form"));
    await waitFor(() => expect(fieldMessage(email)).toBe("Bitte E-Mail eingeben."));
  });

  it("describeError takes the table to use", () => {
    const custom = { ...DEFAULT_MESSAGES, errorEmailPasswordMismatch: "Falsch." };
    expect(describeError(new errors.EmailPasswordMismatch(), custom)).toBe("Falsch.");
  });
});

type ErrorClass = new (init?: { details?: Record<string, unknown> }) => KnownError;

/** Every known error a handler page can show, with the sentence it shows. */
const PAGE_ERRORS: [ErrorClass, Record<string, unknown> | undefined, string][] = [
  [errors.EmailPasswordMismatch, undefined, "Wrong e-mail or password."],
  [errors.UserEmailAlreadyExists, undefined, "An account with this e-mail address already exists. Sign in instead."],
  [errors.PasswordTooShort, { min_length: 10 }, "The password is too short: use at least 10 characters."],
  [errors.PasswordTooLong, { maxLength: 64 }, "The password is too long: use at most 64 characters."],
  [errors.SignUpNotEnabled, undefined, "This project is not taking new sign-ups."],
  [errors.PasswordAuthenticationNotEnabled, undefined, "Signing in with a password is not enabled for this project."],
  [errors.PasskeyAuthenticationNotEnabled, undefined, "Signing in with a passkey is not enabled for this project."],
  [errors.MultiFactorAuthenticationRequired, undefined, DEFAULT_MESSAGES.errorMfaRequired],
  [errors.InvalidTotpCode, undefined, "The code is not correct. Check your authenticator app and try again."],
  // The service sends this code only for a password change whose current password is wrong.
  [errors.PasswordConfirmationMismatch, undefined, "Your current password is wrong."],
  [errors.UserDoesNotHavePassword, undefined, "This account has no password yet; set one instead."],
  [errors.EmailAlreadyVerified, undefined, "This e-mail address is already verified."],
  [errors.RedirectUrlNotWhitelisted, undefined, DEFAULT_MESSAGES.errorRedirectUrlNotWhitelisted],
  [errors.ContactChannelAlreadyUsedForAuthBySomeoneElse, undefined, "Another account already signs in with this e-mail address."],
  [errors.TeamPermissionRequired, { team_id: "t", user_id: "u", permission_id: "$invite_members" }, DEFAULT_MESSAGES.errorTeamPermissionRequired],
  [errors.TeamMembershipAlreadyExists, undefined, "You are already a member of this team."],
  [errors.TeamNotFound, { team_id: "t" }, "This team no longer exists."],
  [errors.TeamMembershipNotFound, { team_id: "t", user_id: "u" }, "You are not a member of this team (any more)."],
  [errors.VerificationCodeExpired, undefined, "This code has expired."],
  [errors.VerificationCodeAlreadyUsed, undefined, "This code has already been used."],
  [errors.VerificationCodeMaxAttemptsReached, undefined, "This code was tried too many times."],
  [errors.VerificationCodeNotFound, undefined, "This code is not valid."],
  // The service's validation text is never shown.
  [errors.SchemaError, { message: "body.email must be a valid e-mail address" }, DEFAULT_MESSAGES.errorRejected],
];

describe("the sentence of every known error a page can show", () => {
  it.each(PAGE_ERRORS.map(([cls, details, message]) => [cls.name, cls, details, message] as const))(
    "%s",
    (_name, cls, details, message) => {
      const error = new cls(details ? { details } : {});
      expect(describeError(error)).toBe(message);
    },
  );

  it("each is specific: no two errors share a sentence", () => {
    const sentences = PAGE_ERRORS.map(([cls, details]) => describeError(new cls(details ? { details } : {})));
    expect(new Set(sentences).size).toBe(sentences.length);
  });

  it("network failures, plain-text refusals and anything else have their own sentences", () => {
    const down = (offline: boolean) => new ConnectionError({ method: "POST", url: "http://api.test", offline, diagnostics: [] });
    expect(describeError(down(true))).toBe(DEFAULT_MESSAGES.errorOffline);
    expect(describeError(down(false))).toBe(DEFAULT_MESSAGES.errorUnreachable);
    expect(describeError(new HttpStatusError(403, "Magic link is not enabled for this project"))).toBe(
      "Magic link is not enabled for this project",
    );
    expect(describeError(new HttpStatusError(500, "<html>oops</html>"))).toBe(DEFAULT_MESSAGES.errorServer);
    expect(describeError(new HttpStatusError(404, "<html>not here</html>"))).toBe(DEFAULT_MESSAGES.errorUnknown);
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      const own = new Error("AuthProvider needs the publishable client key");
      expect(describeError(own)).toBe(DEFAULT_MESSAGES.errorUnknown);
      // the person reads the generic sentence; the developer finds the real one in the console
      expect(logged).toHaveBeenCalledWith("authmw:", own);
    } finally {
      logged.mockRestore();
    }
  });
});

/** Codes only the server and admin tiers meet (no handler page calls them): the generic sentence. */
const NO_PAGE_MEETS = new Set([
  "UNSUPPORTED_ERROR",
  "API_KEY_NOT_ACCEPTED",
  "API_KEY_EXPIRED",
  "API_KEY_REVOKED",
  "WRONG_API_KEY_TYPE",
  "PUBLIC_API_KEY_CANNOT_BE_REVOKED",
  "PERMISSION_NOT_FOUND",
  "WRONG_PERMISSION_SCOPE",
  "PERMISSION_ID_ALREADY_EXISTS",
  "CONTAINED_PERMISSION_NOT_FOUND",
  "EMAIL_TEMPLATE_ALREADY_EXISTS",
  "ANALYTICS_NOT_ENABLED",
  // Known errors of backend 2.8.86 that no handler page calls: payments, data vault, analytics
  // and e-mail administration; native Apple sign-in; a connected account's provider token (an
  // SDK call); the CLI sign-in (no page of it yet); three the backend defines and never sends.
  "EMAIL_NOT_VERIFIED",
  "DATA_VAULT_STORE_DOES_NOT_EXIST",
  "DATA_VAULT_STORE_HASHED_KEY_DOES_NOT_EXIST",
  "ANONYMOUS_ACCOUNTS_NOT_ENABLED",
  "TEAM_ALREADY_EXISTS",
  "OAUTH_ACCESS_TOKEN_NOT_AVAILABLE",
  "APPLE_BUNDLE_ID_NOT_CONFIGURED",
  "INVALID_APPLE_CREDENTIALS",
  "INVALID_POLLING_CODE",
  "CLI_AUTH_ERROR",
  "CLI_AUTH_EXPIRED_ERROR",
  "CLI_AUTH_USED_ERROR",
  "EMAIL_RENDERING_ERROR",
  "TEMPLATE_SOURCE_REWRITE_ERROR",
  "EMAIL_CAPACITY_BOOST_ALREADY_ACTIVE",
  "EMAIL_NOT_EDITABLE",
  "ITEM_NOT_FOUND",
  "ITEM_CUSTOMER_TYPE_DOES_NOT_MATCH",
  "CUSTOMER_DOES_NOT_EXIST",
  "SUBSCRIPTION_INVOICE_NOT_FOUND",
  "ONE_TIME_PURCHASE_NOT_FOUND",
  "SUBSCRIPTION_ALREADY_REFUNDED",
  "ONE_TIME_PURCHASE_ALREADY_REFUNDED",
  "TEST_MODE_PURCHASE_NON_REFUNDABLE",
  "PRODUCT_DOES_NOT_EXIST",
  "PRODUCT_CUSTOMER_TYPE_DOES_NOT_MATCH",
  "PRODUCT_ALREADY_GRANTED",
  "ITEM_QUANTITY_INSUFFICIENT_AMOUNT",
  "STRIPE_ACCOUNT_INFO_NOT_FOUND",
  "ANALYTICS_QUERY_TIMEOUT",
  "ANALYTICS_QUERY_ERROR",
  "DEFAULT_PAYMENT_METHOD_REQUIRED",
  "NEW_PURCHASES_BLOCKED",
]);

describe("issue 31: one mapping from every catalogue error to what a person reads", () => {
  const concrete = Object.values(errors.knownErrorClasses).filter((cls) => !cls.abstract);
  const codes = concrete.map((cls) => cls.code);
  // The service's wording, with a value that must never reach the page.
  const HOSTILE = "Request validation failed on POST /api/v1/x: body.code must be at least 45 characters <b>x</b>";

  it.each(concrete.map((cls) => [cls.code, cls] as const))("%s", (code, cls) => {
    const error = new cls({ message: HOSTILE, details: { message: HOSTILE, min_length: 12, maxLength: 64 } });
    const text = describeError(error);
    if (NO_PAGE_MEETS.has(code)) expect(text).toBe(DEFAULT_MESSAGES.errorUnknown);
    else expect(text).not.toBe(DEFAULT_MESSAGES.errorUnknown);
    expect(text).not.toContain("validation");
    expect(text).not.toContain("<b>");
    for (const any of codes) expect(text).not.toContain(any);
    // A sentence: a capital first, a full stop last, no template placeholder.
    expect(text).toMatch(/^[A-Z].*[.]$/);
    expect(text).not.toMatch(/[{}]/);
  });

  it("a malformed code on a link page is named as the link, not as the service's validation", () => {
    const malformed = new errors.SchemaError({ message: HOSTILE, details: { message: HOSTILE } });
    expect(describeCodeError(malformed, DEFAULT_MESSAGES.passwordResetLinkNoun, DEFAULT_MESSAGES)).toBe(
      "This password reset link is not valid.",
    );
    expect(describeCodeError(new errors.VerificationCodeExpired(), DEFAULT_MESSAGES.signInLinkNoun, DEFAULT_MESSAGES)).toBe(
      "This sign-in link has expired.",
    );
  });

  it("overrides given to <AuthHandler messages> are what the mapping returns", () => {
    const custom = { ...DEFAULT_MESSAGES, errorSetup: "Einrichtung fehlerhaft.", oauthDenied: "Abgelehnt." };
    expect(describeError(new errors.InvalidPublishableClientKey({ details: { project_id: "p" } }), custom)).toBe("Einrichtung fehlerhaft.");
    expect(describeError(new errors.OAuthProviderAccessDenied(), custom)).toBe("Abgelehnt.");
  });

  it("service plain-text refusals are shown only when they are a plain sentence", () => {
    expect(describeError(new HttpStatusError(400, "Request validation failed on POST /api/v1/auth: body.code is required"))).toBe(
      DEFAULT_MESSAGES.errorUnknown,
    );
    expect(describeError(new HttpStatusError(400, "<b>x</b>"))).toBe(DEFAULT_MESSAGES.errorUnknown);
  });
});
