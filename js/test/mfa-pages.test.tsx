// The passkey button, the Passkeys and Two-factor sections, the QR code and the passkey messages (jsdom).
import { cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { Secret, TOTP } from "otpauth";
import { MemoryRouter, Route, Routes } from "react-router";
import { afterEach, describe, expect, it } from "vitest";
import { PasskeyAuthenticationFailed, PasskeyWebauthnError } from "../src/errors";
import { AuthHandler, DEFAULT_MESSAGES } from "../src/index";
import { webauthnError } from "../src/protocol";
import { describePasskeyError } from "../src/react/messages";
import { QrCode } from "../src/react/qr-code";
import { AuthProviderForTesting } from "../src/testing";
import type { ProjectConfig } from "../src/models";

const originalPublicKeyCredential = (globalThis as { PublicKeyCredential?: unknown }).PublicKeyCredential;
afterEach(() => {
  cleanup();
  (globalThis as { PublicKeyCredential?: unknown }).PublicKeyCredential = originalPublicKeyCredential;
});

function renderHandler(path: string, projectConfig: Partial<ProjectConfig>, user: Record<string, unknown> | null = {}) {
  render(
    <MemoryRouter initialEntries={[path]}>
      <AuthProviderForTesting user={user} projectConfig={projectConfig}>
        <Routes>
          <Route path="/handler/*" element={<AuthHandler />} />
          <Route path="/" element={<p data-testid="home">home</p>} />
        </Routes>
      </AuthProviderForTesting>
    </MemoryRouter>,
  );
}

describe("passkey sign-in button", () => {
  it("shows on the sign-in page only when the project has passkeys on, and signs in", async () => {
    (globalThis as { PublicKeyCredential?: unknown }).PublicKeyCredential = function PublicKeyCredential() {};
    renderHandler("/handler/sign-in", { passkeyEnabled: true }, null);
    const button = await screen.findByTestId("passkey-sign-in");
    expect(button.textContent).toContain("Sign in with a passkey");
    expect(screen.getByLabelText("E-mail").getAttribute("autocomplete")).toBe("username webauthn");
    fireEvent.click(button);
    expect(await screen.findByTestId("home")).toBeTruthy();
  });

  it("is absent when passkeys are off, and on the sign-up page", async () => {
    renderHandler("/handler/sign-in", { passkeyEnabled: false }, null);
    await screen.findByTestId("sign-in-form");
    expect(screen.queryByTestId("passkey-sign-in")).toBeNull();
    expect(screen.getByLabelText("E-mail").getAttribute("autocomplete")).toBe("username");
  });

  it("says so in a browser without WebAuthn", async () => {
    (globalThis as { PublicKeyCredential?: unknown }).PublicKeyCredential = undefined;
    renderHandler("/handler/sign-in", { passkeyEnabled: true }, null);
    fireEvent.click(await screen.findByTestId("passkey-sign-in"));
    expect((await screen.findByRole("alert")).textContent).toBe(DEFAULT_MESSAGES.passkeysUnsupported);
  });
});

describe("account settings", () => {
  it("adds and removes the passkey", async () => {
    (globalThis as { PublicKeyCredential?: unknown }).PublicKeyCredential = function PublicKeyCredential() {};
    renderHandler("/handler/account-settings/passkeys", { passkeyEnabled: true }, { primaryEmail: "a@example.com" });
    const status = await screen.findByTestId("passkey-status");
    expect(status.getAttribute("data-registered")).toBe("false");
    fireEvent.click(screen.getByTestId("add-passkey"));
    await waitFor(() => expect(screen.getByTestId("passkey-status").getAttribute("data-registered")).toBe("true"));
    expect(screen.getByTestId("passkey-done").textContent).toBe(DEFAULT_MESSAGES.passkeyAdded);
    fireEvent.click(screen.getByTestId("remove-passkey"));
    await waitFor(() => expect(screen.getByTestId("passkey-status").getAttribute("data-registered")).toBe("false"));
  });

  it("hides Passkeys when the project has them off and the user has none", async () => {
    renderHandler("/handler/account-settings/two-factor", { passkeyEnabled: false }, { primaryEmail: "a@example.com" });
    await screen.findByTestId("settings-two-factor");
    const nav = screen.getByRole("navigation", { name: "Account settings sections" });
    expect(within(nav).queryByRole("link", { name: "Passkeys" })).toBeNull();
    expect(within(nav).getByRole("link", { name: "Two-factor authentication" })).toBeTruthy();
  });

  it("turns TOTP on only with a code of the shown secret, and off again", async () => {
    renderHandler("/handler/account-settings/two-factor", {}, { primaryEmail: "a@example.com" });
    fireEvent.click(await screen.findByTestId("enable-totp"));
    await screen.findByRole("img", { name: DEFAULT_MESSAGES.twoFactorQrLabel });
    const secret = (screen.getByTestId("totp-secret") as HTMLInputElement).value.replace(/ /g, "");
    const code = new TOTP({ secret: Secret.fromBase32(secret) }).generate();
    const field = screen.getByLabelText(DEFAULT_MESSAGES.twoFactorCodeLabel);

    fireEvent.change(field, { target: { value: code === "000000" ? "111111" : "000000" } });
    fireEvent.click(screen.getByTestId("confirm-totp"));
    expect((await screen.findByTestId("code-error")).textContent).toBe(DEFAULT_MESSAGES.errorInvalidTotpCode);
    expect(screen.queryByTestId("two-factor-status")).toBeNull();

    fireEvent.change(field, { target: { value: code } });
    fireEvent.click(screen.getByTestId("confirm-totp"));
    await waitFor(() => expect(screen.getByTestId("two-factor-status").getAttribute("data-enabled")).toBe("true"));
    // The section says it is on once, and what changes (not "is on" twice).
    const section = screen.getByTestId("settings-two-factor").textContent ?? "";
    expect(section.match(/ is on\b/g)).toHaveLength(1);
    expect(screen.getByTestId("two-factor-done").textContent).toBe("Done: your next sign-in asks for a code from the app.");
    fireEvent.click(screen.getByTestId("disable-totp"));
    await waitFor(() => expect(screen.getByTestId("two-factor-status").getAttribute("data-enabled")).toBe("false"));
  });
});

describe("QrCode", () => {
  it("draws the modules of the text as one SVG path on a white square with a quiet zone", async () => {
    render(<QrCode text="otpauth://totp/App:a%40b.co?secret=JBSWY3DPEHPK3PXP&issuer=App" label="QR" testId="qr" />);
    const svg = await screen.findByRole("img", { name: "QR" });
    const size = Number(svg.getAttribute("viewBox")!.split(" ")[2]);
    expect(size).toBeGreaterThanOrEqual(21 + 8);
    expect((size - 8 - 17) % 4).toBe(0); // 17 + 4 * version modules, plus 4 each side
    const path = svg.querySelector("path")!.getAttribute("d")!;
    expect(path).toMatch(/^M4 4h1v1h-1z/); // the finder pattern's corner, inside the quiet zone
    expect(svg.querySelector("rect")!.getAttribute("fill")).toBe("#fff");
  });
});

describe("describePasskeyError", () => {
  it("tells a cancel, a browser refusal, an unknown passkey and other refusals apart", () => {
    const m = DEFAULT_MESSAGES;
    const cancel = webauthnError(Object.assign(new Error("x"), { name: "NotAllowedError" }));
    expect(describePasskeyError(cancel, m)).toBe(m.passkeyCancelled);
    const twice = new PasskeyWebauthnError({ message: "dup", details: { code: "ERROR_AUTHENTICATOR_PREVIOUSLY_REGISTERED" } });
    expect(describePasskeyError(twice, m)).toBe(m.passkeyAlreadyRegistered);
    const other = new PasskeyWebauthnError({ message: "The RP ID is invalid", details: { code: "ERROR_INVALID_RP_ID" } });
    expect(describePasskeyError(other, m)).toBe(m.passkeyBrowserRefused("The RP ID is invalid"));
    expect(describePasskeyError(new PasskeyAuthenticationFailed({ message: "Passkey not found" }), m)).toBe(m.passkeyNotFound);
  });
});
