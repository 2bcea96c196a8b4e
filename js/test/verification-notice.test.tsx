// The notice after a sign-up (issue 41) with the package's testing controller: shown by
// UserButton only while the sign-up's note is the signed-in user's and the address is not
// verified; "Send again" sends, "Dismiss" and verification remove the note. The browser test
// (tests/browser/test_verification_notice.py) runs it against the local service.
import { act, cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { MemoryRouter } from "react-router";
import { afterEach, describe, expect, it } from "vitest";
import { UserButton, VerificationNotice } from "../src/index";
import { NOTE_KEY } from "../src/react/verification-note-key";
import { noteVerificationSent } from "../src/react/verification-note";
import { AuthProvider } from "../src/react/provider";
import { createTestingController, fakeUser } from "../src/testing";
import type { AuthController } from "../src/controller";

afterEach(() => {
  cleanup();
  sessionStorage.clear();
});

const NEW_USER = fakeUser({ id: "u-new", primaryEmail: "new@example.com", primaryEmailVerified: false });

function renderWith(controller: AuthController, children = <UserButton />) {
  return render(
    <MemoryRouter>
      <AuthProvider projectId="p" baseUrl="http://localhost:8102" client={controller} redirectMethod="router">
        {children}
      </AuthProvider>
    </MemoryRouter>,
  );
}

describe("the verification notice", () => {
  it("names the address of the sign-up's note, sends again, and is gone for good when dismissed", async () => {
    const sent: string[] = [];
    const controller = createTestingController({ user: NEW_USER });
    controller.sendVerificationEmail = async () => void sent.push("again");
    noteVerificationSent(NEW_USER);
    renderWith(controller);
    const notice = await screen.findByRole("region", { name: "Check your inbox" });
    expect(notice.textContent).toContain("We sent a verification link to new@example.com.");
    fireEvent.click(screen.getByRole("button", { name: "Send again" }));
    await screen.findByText("Sent again.");
    expect(sent).toEqual(["again"]);
    fireEvent.click(screen.getByRole("button", { name: "Dismiss" }));
    await waitFor(() => expect(screen.queryByTestId("verification-notice")).toBeNull());
    expect(sessionStorage.getItem(NOTE_KEY)).toBeNull();
  });

  it("goes with the note once the address is verified", async () => {
    const controller = createTestingController({ user: NEW_USER });
    noteVerificationSent(NEW_USER);
    renderWith(controller);
    await screen.findByTestId("verification-notice");
    await act(() => controller.verifyEmail("code"));
    await waitFor(() => expect(screen.queryByTestId("verification-notice")).toBeNull());
    expect(sessionStorage.getItem(NOTE_KEY)).toBeNull();
  });

  it("is not another user's, and no note is left for a verified or anonymous user", async () => {
    noteVerificationSent(fakeUser({ primaryEmailVerified: true }));
    noteVerificationSent(fakeUser({ primaryEmailVerified: false, isAnonymous: true }));
    expect(sessionStorage.getItem(NOTE_KEY)).toBeNull();
    noteVerificationSent(NEW_USER);
    renderWith(createTestingController({ user: fakeUser({ id: "u-other", primaryEmailVerified: false }) }));
    await waitFor(() => expect(sessionStorage.getItem(NOTE_KEY)).toBeNull());
    expect(screen.queryByTestId("verification-notice")).toBeNull();
  });

  it("shows once however many slots are rendered, in the texts given", async () => {
    noteVerificationSent(NEW_USER);
    renderWith(
      createTestingController({ user: NEW_USER }),
      <>
        <UserButton texts={{ verificationSentTitle: "Posteingang" }} />
        <VerificationNotice texts={{ verificationSentTitle: "Posteingang" }} />
      </>,
    );
    await screen.findByRole("region", { name: "Posteingang" });
    expect(screen.getAllByTestId("verification-notice")).toHaveLength(1);
  });
});
