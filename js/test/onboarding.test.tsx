// The onboarding page's states over the testing fake (verify the e-mail, add one first, replace a
// mistyped one, an administrator's reason), and reading the code of a pasted link (jsdom).
// The real service's side (a restricted user sent there, the code from the mailbox) is the
// Chromium test tests/browser/test_onboarding.py.
import { cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { MemoryRouter, Route, Routes } from "react-router";
import { afterEach, describe, expect, it } from "vitest";
import { AuthHandler, useUser } from "../src/index";
import { verificationCode } from "../src/restricted-session";
import { AuthProviderForTesting, type TestingControllerOptions } from "../src/testing";

afterEach(cleanup);

function Home() {
  return <p data-testid="home">{useUser().status}</p>;
}

function renderAt(url: string, options: TestingControllerOptions) {
  return render(
    <MemoryRouter initialEntries={[url]}>
      <AuthProviderForTesting {...options}>
        <Routes>
          <Route path="/handler/*" element={<AuthHandler />} />
          <Route path="/dashboard" element={<Home />} />
        </Routes>
      </AuthProviderForTesting>
    </MemoryRouter>,
  );
}

describe("onboarding", () => {
  it("asks a user whose e-mail is not verified for the code, then continues signed in", async () => {
    renderAt("/handler/onboarding?after_auth_return_to=%2Fdashboard", { restrictedUser: { primaryEmail: "ada@example.com" } });
    expect(await screen.findByRole("heading", { name: "Verify your e-mail" })).toBeTruthy();
    expect(screen.getByText(/verify ada@example\.com/)).toBeTruthy();
    fireEvent.click(screen.getByRole("button", { name: "Verify" }));
    expect((await screen.findByTestId("code-error")).textContent).toBe("Enter the code from the e-mail.");
    fireEvent.change(screen.getByLabelText("Code or link from the e-mail"), { target: { value: "x".repeat(45) } });
    fireEvent.click(screen.getByRole("button", { name: "Verify" }));
    expect(await screen.findByTestId("onboarding-done")).toBeTruthy();
    fireEvent.click(screen.getByRole("button", { name: "Continue" }));
    expect((await screen.findByTestId("home")).textContent).toBe("signed-in");
  });

  it("asks a user without an e-mail address for one, then for the code of the e-mail sent to it", async () => {
    renderAt("/handler/onboarding?after_auth_return_to=%2Fdashboard", { restrictedUser: { primaryEmail: null } });
    expect(await screen.findByRole("heading", { name: "Add an e-mail address" })).toBeTruthy();
    expect(screen.getByText("Your account has no e-mail address yet. Add one and we will send it a verification e-mail.")).toBeTruthy();
    const send = await screen.findByRole("button", { name: "Send verification e-mail" });
    fireEvent.click(send);
    expect((await screen.findByTestId("email-error")).textContent).toBe("Enter your e-mail address.");
    fireEvent.change(screen.getByLabelText("E-mail"), { target: { value: "ada@" } });
    fireEvent.click(send);
    expect((await screen.findByTestId("email-error")).textContent).toBe("Enter an e-mail address such as name@example.com.");
    fireEvent.change(screen.getByLabelText("E-mail"), { target: { value: " ada@example.com " } });
    fireEvent.click(send);
    expect(await screen.findByRole("heading", { name: "Verify your e-mail" })).toBeTruthy();
    expect(screen.getByTestId("onboarding-status").textContent).toBe("We sent a verification e-mail to ada@example.com.");
    expect(screen.getByText(/verify ada@example\.com/)).toBeTruthy();
    fireEvent.change(screen.getByLabelText("Code or link from the e-mail"), { target: { value: "x".repeat(45) } });
    fireEvent.click(screen.getByRole("button", { name: "Verify" }));
    fireEvent.click(await screen.findByRole("button", { name: "Continue" }));
    expect((await screen.findByTestId("home")).textContent).toBe("signed-in");
  });

  it("lets a user replace an unverified address, or go back to verifying it", async () => {
    renderAt("/handler/onboarding", { restrictedUser: { primaryEmail: "ada@exmaple.com" } });
    fireEvent.click(await screen.findByRole("button", { name: "Use another e-mail address" }));
    expect(await screen.findByRole("heading", { name: "Add an e-mail address" })).toBeTruthy();
    // The field takes the focus (the button that had it is gone); no "no address yet" text.
    await waitFor(() => expect(document.activeElement).toBe(screen.getByLabelText("E-mail")));
    expect(screen.queryByText(/no e-mail address yet/)).toBeNull();
    fireEvent.click(screen.getByRole("button", { name: "Cancel" }));
    expect(await screen.findByText(/verify ada@exmaple\.com/)).toBeTruthy();

    fireEvent.click(screen.getByRole("button", { name: "Use another e-mail address" }));
    fireEvent.change(await screen.findByLabelText("E-mail"), { target: { value: "ada@example.com" } });
    fireEvent.click(screen.getByRole("button", { name: "Send verification e-mail" }));
    expect(await screen.findByText(/verify ada@example\.com/)).toBeTruthy();
  });

  it("shows an administrator's public reason, and no code form", async () => {
    renderAt("/handler/onboarding", {
      restrictedUser: {
        restrictedReason: { type: "restricted_by_administrator" },
        restrictedByAdmin: true,
        restrictedByAdminReason: "Under review.",
        primaryEmailVerified: true,
      },
    });
    expect(await screen.findByRole("heading", { name: "Your account is restricted" })).toBeTruthy();
    expect(screen.getByTestId("onboarding-admin-reason").textContent).toContain("Under review.");
    expect(screen.queryByTestId("onboarding-code-form")).toBeNull();
  });

  it("offers sign-in without a restricted session", async () => {
    renderAt("/handler/onboarding", { user: null });
    expect(await screen.findByText("Sign in to finish setting up your account.")).toBeTruthy();
  });
});

describe("verificationCode", () => {
  it("takes the code of a pasted link, or the text itself", () => {
    expect(verificationCode(" https://app.example/handler/email-verification?code=abc&after_auth_return_to=%2F ")).toBe("abc");
    expect(verificationCode("  abc ")).toBe("abc");
    expect(verificationCode("https://app.example/no-code")).toBe("https://app.example/no-code");
  });
});
