import { act, cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { Component, type ReactNode } from "react";
import { MemoryRouter, Route, Routes, useLocation } from "react-router";
import { afterEach, describe, expect, it } from "vitest";
import { Protect, SelectedTeamSwitcher, SignedIn, SignedOut, UserButton, useUser } from "../src/index";
import { initials } from "../src/react/components/avatar";
import { COMPONENT_STYLES } from "../src/react/components/theme";
import { SIGN_OUT_INTENT_PARAM } from "../src/sign-out-intent";
import { AuthProvider } from "../src/react/provider";
import { AuthProviderForTesting, createTestingController, type AuthProviderForTestingProps } from "../src/testing";

afterEach(cleanup);

function Where() {
  const location = useLocation();
  return <p data-testid="where">{`${location.pathname}${location.search}`}</p>;
}

function Who() {
  const state = useUser();
  return <p data-testid="who">{state.status === "signed-in" ? `${state.user.primaryEmail} in ${state.user.selectedTeamId}` : state.status}</p>;
}

function renderWith(options: Omit<AuthProviderForTestingProps, "children">, children: ReactNode) {
  return render(
    <MemoryRouter initialEntries={["/"]}>
      <AuthProviderForTesting {...options}>
        <Routes>
          <Route path="*" element={<>{children}<Where /><Who /></>} />
        </Routes>
      </AuthProviderForTesting>
    </MemoryRouter>,
  );
}

const ADA = { primaryEmail: "ada@example.com", displayName: "Ada Lovelace" };
const TEAMS = [
  { id: "t-design", displayName: "Design" },
  { id: "t-ops", displayName: "Operations" },
];

describe("SignedIn and SignedOut", () => {
  const both = (
    <>
      <SignedIn fallback={<span>in: waiting</span>}>in: shown</SignedIn>
      <SignedOut fallback={<span>out: waiting</span>}>out: shown</SignedOut>
    </>
  );

  it("show their children to a signed-in and a signed-out visitor only", () => {
    renderWith({ user: ADA }, both);
    expect(screen.getByText("in: shown")).toBeTruthy();
    expect(screen.queryByText(/out:/)).toBeNull();
    cleanup();
    renderWith({ user: null }, both);
    expect(screen.getByText("out: shown")).toBeTruthy();
    expect(screen.queryByText(/in:/)).toBeNull();
  });

  it("show the fallback while the session loads, and nothing without one", () => {
    renderWith({ loading: true }, both);
    expect(screen.getByText("in: waiting")).toBeTruthy();
    expect(screen.getByText("out: waiting")).toBeTruthy();
    cleanup();
    const { container } = renderWith({ loading: true }, <SignedIn>in</SignedIn>);
    expect(container.textContent).toBe("/loading");
  });
});

describe("SignedIn and SignedOut for a guest (an anonymous user the app shows)", () => {
  const GUEST = { primaryEmail: null, displayName: null, isAnonymous: true };

  it("a guest is signed out for both by default: SignedIn hides, SignedOut shows", () => {
    renderWith({ user: GUEST }, <><SignedIn>in: shown</SignedIn><SignedOut>out: shown</SignedOut></>);
    expect(screen.getByText("out: shown")).toBeTruthy();
    expect(screen.queryByText("in: shown")).toBeNull();
  });

  it("includeAnonymous turns that round, and a real user and a signed-out visitor are unaffected", () => {
    const turned = <><SignedIn includeAnonymous>in: shown</SignedIn><SignedOut includeAnonymous={false}>out: shown</SignedOut></>;
    renderWith({ user: GUEST }, turned);
    expect(screen.getByText("in: shown")).toBeTruthy();
    expect(screen.queryByText("out: shown")).toBeNull();
    cleanup();
    renderWith({ user: ADA }, turned);
    expect(screen.getByText("in: shown")).toBeTruthy();
    expect(screen.queryByText("out: shown")).toBeNull();
    cleanup();
    renderWith({ user: null }, turned);
    expect(screen.getByText("out: shown")).toBeTruthy();
    expect(screen.queryByText("in: shown")).toBeNull();
  });
});

describe("useUser's or", () => {
  function Guarded({ or }: { or: "throw" | "redirect" }) {
    const state = useUser({ or });
    return <p data-testid="guarded">{state.status === "signed-in" ? state.user.primaryEmail : state.status}</p>;
  }
  class Boundary extends Component<{ children: ReactNode }, { error: unknown }> {
    override state = { error: null as unknown };
    static getDerivedStateFromError(error: unknown) {
      return { error };
    }
    override render() {
      return this.state.error ? <p data-testid="caught">{(this.state.error as Error).message}</p> : this.props.children;
    }
  }

  it('"throw" throws an Error for a signed-out visitor, to the error boundary', () => {
    const quiet = console.error;
    console.error = () => {};
    try {
      renderWith({ user: null }, <Boundary><Guarded or="throw" /></Boundary>);
    } finally {
      console.error = quiet;
    }
    expect(screen.getByTestId("caught").textContent).toBe('useUser({ or: "throw" }): nobody is signed in');
  });

  it('"throw" and "redirect" return the signed-in user, and wait while the session loads', () => {
    renderWith({ user: ADA }, <Guarded or="throw" />);
    expect(screen.getByTestId("guarded").textContent).toBe("ada@example.com");
    cleanup();
    renderWith({ loading: true }, <Guarded or="throw" />);
    expect(screen.getByTestId("guarded").textContent).toBe("loading");
    cleanup();
    renderWith({ user: ADA }, <Guarded or="redirect" />);
    expect(screen.getByTestId("guarded").textContent).toBe("ada@example.com");
  });
});

describe("Protect", () => {
  const gate = (rule: ReactNode) => rule;

  it("admits a member of the team, not a member of another one, and not a signed-out visitor", async () => {
    const member = <Protect teamId="t-design" fallback={<span>denied</span>}>secret</Protect>;
    renderWith({ user: ADA, teams: TEAMS }, member);
    expect(await screen.findByText("secret")).toBeTruthy();
    cleanup();
    renderWith({ user: ADA, teams: [TEAMS[1]!] }, member);
    expect(await screen.findByText("denied")).toBeTruthy();
    cleanup();
    renderWith({ user: null, teams: TEAMS }, member);
    expect(screen.getByText("denied")).toBeTruthy();
  });

  it("admits a holder of the permission in the given or the selected team", async () => {
    const options = { user: { ...ADA, selectedTeamId: "t-design" }, teams: TEAMS, permissions: { "t-design": ["$update_team"] } };
    renderWith(options, <Protect permission="$update_team" fallback="denied">selected team: allowed</Protect>);
    expect(await screen.findByText("selected team: allowed")).toBeTruthy();
    cleanup();
    renderWith(options, <Protect teamId="t-ops" permission="$update_team" fallback="other team: denied">allowed</Protect>);
    expect(await screen.findByText("other team: denied")).toBeTruthy();
    cleanup();
    renderWith(options, <Protect permission="$delete_team" fallback="missing permission: denied">allowed</Protect>);
    expect(await screen.findByText("missing permission: denied")).toBeTruthy();
    cleanup();
    // No selected team: nothing to hold the permission in.
    renderWith({ ...options, user: ADA }, <Protect permission="$update_team" fallback="no team: denied">allowed</Protect>);
    expect(screen.getByText("no team: denied")).toBeTruthy();
  });

  it("admits a holder of the project permission with `project`, whatever the selected team holds", async () => {
    const options = {
      user: { ...ADA, selectedTeamId: "t-design" },
      teams: TEAMS,
      permissions: { "t-design": ["view_reports"] },
      projectPermissions: ["export_data"],
    };
    renderWith(options, <Protect permission="export_data" project fallback="denied">project: allowed</Protect>);
    expect(await screen.findByText("project: allowed")).toBeTruthy();
    cleanup();
    // Held in the selected team, not in the project: denied.
    renderWith(options, <Protect permission="view_reports" project fallback="team only: denied">allowed</Protect>);
    expect(await screen.findByText("team only: denied")).toBeTruthy();
    cleanup();
    renderWith({ ...options, user: null }, <Protect permission="export_data" project fallback="signed out: denied">allowed</Protect>);
    expect(screen.getByText("signed out: denied")).toBeTruthy();
  });

  it("admits the users a condition accepts", () => {
    const verified = <Protect condition={(user) => user.primaryEmailVerified} fallback="unverified">verified</Protect>;
    renderWith({ user: { ...ADA, primaryEmailVerified: true } }, verified);
    expect(screen.getByText("verified")).toBeTruthy();
    cleanup();
    renderWith({ user: { ...ADA, primaryEmailVerified: false } }, verified);
    expect(screen.getByText("unverified")).toBeTruthy();
  });

  it("shows `loading` (not the fallback) while the session loads", () => {
    renderWith({ loading: true }, <Protect teamId="t" loading="checking" fallback="denied">secret</Protect>);
    expect(screen.getByText("checking")).toBeTruthy();
    expect(screen.queryByText("denied")).toBeNull();
  });

  it("needs a rule (a type error otherwise)", () => {
    // @ts-expect-error: a Protect without teamId, permission or condition
    const noRule = <Protect>secret</Protect>;
    // @ts-expect-error: a condition does not combine with a team
    const both = <Protect teamId="t" condition={() => true}>secret</Protect>;
    expect(gate(noRule)).toBeTruthy();
    expect(gate(both)).toBeTruthy();
  });
});

describe("UserButton", () => {
  it("renders nothing signed out and a blank avatar while loading", () => {
    const { container } = renderWith({ user: null }, <UserButton />);
    expect(container.querySelector("[data-testid=user-button]")).toBeNull();
    cleanup();
    renderWith({ loading: true }, <UserButton />);
    expect(screen.getByTestId("user-button").querySelector("[aria-hidden=true] .authmw-avatar")).toBeTruthy();
    expect(screen.queryByRole("button")).toBeNull();
  });

  it("is a menu button named after the user, with their initials or their picture", async () => {
    renderWith({ user: ADA }, <UserButton />);
    const trigger = screen.getByRole("button", { name: "Account menu, Ada Lovelace" });
    expect(trigger.getAttribute("aria-haspopup")).toBe("menu");
    expect(trigger.getAttribute("aria-expanded")).toBe("false");
    expect(trigger.querySelector(".authmw-avatar")!.textContent).toBe("AL");
    cleanup();
    renderWith({ user: { primaryEmail: "grace@example.com", profileImageUrl: "https://example.com/g.png" } }, <UserButton />);
    const button = screen.getByRole("button", { name: "Account menu, grace@example.com" });
    const image = button.querySelector("img")!;
    expect(image.getAttribute("alt")).toBe("");
    fireEvent.error(image); // a picture that fails to load gives way to the initials
    expect(button.querySelector(".authmw-avatar")!.textContent).toBe("G");
  });

  it("opens with Enter, Space and ArrowDown on the first item, ArrowUp on the last; arrows move and wrap", async () => {
    renderWith({ user: ADA, teams: TEAMS }, <UserButton />);
    const trigger = screen.getByRole("button", { name: /Account menu/ });
    trigger.focus();
    fireEvent.keyDown(trigger, { key: "ArrowDown" });
    const menu = await screen.findByRole("menu");
    expect(menu.getAttribute("aria-labelledby")).toBe(trigger.id);
    expect(trigger.getAttribute("aria-expanded")).toBe("true");
    expect(trigger.getAttribute("aria-controls")).toBe(menu.id);
    await waitFor(() => expect(document.activeElement).toBe(within(menu).getByRole("menuitem", { name: "Account settings" })));
    // The teams load when the menu opens.
    const design = await within(menu).findByRole("menuitemradio", { name: "Design" });
    const items = Array.from(menu.querySelectorAll("[role=menuitem], [role=menuitemradio]"));
    expect(items.map((item) => item.textContent)).toEqual(["Account settings", "DDesign", "OOperations", "Sign out"]);
    fireEvent.keyDown(document.activeElement!, { key: "ArrowDown" });
    expect(document.activeElement).toBe(design);
    fireEvent.keyDown(document.activeElement!, { key: "End" });
    expect(document.activeElement!.textContent).toBe("Sign out");
    fireEvent.keyDown(document.activeElement!, { key: "ArrowDown" });
    expect(document.activeElement!.textContent).toBe("Account settings");
    fireEvent.keyDown(document.activeElement!, { key: "ArrowUp" });
    expect(document.activeElement!.textContent).toBe("Sign out");
    fireEvent.keyDown(document.activeElement!, { key: "Home" });
    expect(document.activeElement!.textContent).toBe("Account settings");
    // Escape closes and gives the focus back to the button.
    fireEvent.keyDown(document.activeElement!, { key: "Escape" });
    expect(screen.queryByRole("menu")).toBeNull();
    expect(document.activeElement).toBe(trigger);
    expect(trigger.getAttribute("aria-expanded")).toBe("false");
    // ArrowUp opens on the last item; a click (what Enter and Space do on a button) on the first.
    fireEvent.keyDown(trigger, { key: "ArrowUp" });
    await waitFor(() => expect(document.activeElement!.textContent).toBe("Sign out"));
    fireEvent.click(trigger);
    expect(screen.queryByRole("menu")).toBeNull();
    fireEvent.click(trigger);
    await waitFor(() => expect(document.activeElement!.textContent).toBe("Account settings"));
  });

  it("shows the user's name and e-mail, and no team items for a user without teams", async () => {
    renderWith({ user: ADA }, <UserButton />);
    fireEvent.click(screen.getByRole("button", { name: /Account menu/ }));
    const popover = await screen.findByTestId("user-button-menu");
    expect(within(popover).getByText("Ada Lovelace")).toBeTruthy();
    expect(within(popover).getByText("ada@example.com")).toBeTruthy();
    await act(async () => {}); // the (empty) teams load
    expect(within(popover).queryAllByRole("menuitemradio")).toEqual([]);
    expect(within(popover).getAllByRole("menuitem").map((item) => item.textContent)).toEqual(["Account settings", "Sign out"]);
  });

  it("switches the selected team, marks it checked, and closes", async () => {
    renderWith({ user: { ...ADA, selectedTeamId: "t-design" }, teams: TEAMS }, <UserButton />);
    const trigger = screen.getByRole("button", { name: /Account menu/ });
    fireEvent.click(trigger);
    const design = await screen.findByRole("menuitemradio", { name: "Design" });
    expect(design.getAttribute("aria-checked")).toBe("true");
    fireEvent.click(screen.getByRole("menuitemradio", { name: "Operations" }));
    await waitFor(() => expect(screen.getByTestId("who").textContent).toBe("ada@example.com in t-ops"));
    // the user's new team and the menu's closing are two renders: wait for the second too
    await waitFor(() => expect(screen.queryByRole("menu")).toBeNull());
    expect(document.activeElement).toBe(trigger);
    fireEvent.click(trigger);
    expect((await screen.findByRole("menuitemradio", { name: "Operations" })).getAttribute("aria-checked")).toBe("true");
  });

  it("goes to account settings, and signs out through the sign-out link with its one-time value", async () => {
    renderWith({ user: ADA }, <UserButton />);
    fireEvent.click(screen.getByRole("button", { name: /Account menu/ }));
    fireEvent.click(await screen.findByRole("menuitem", { name: "Account settings" }));
    expect(screen.getByTestId("where").textContent).toBe("/handler/account-settings");
    expect(screen.queryByRole("menu")).toBeNull();
    fireEvent.click(screen.getByRole("button", { name: /Account menu/ }));
    fireEvent.click(await screen.findByRole("menuitem", { name: "Sign out" }));
    expect(screen.getByTestId("where").textContent).toMatch(new RegExp(`^/handler/sign-out\\?${SIGN_OUT_INTENT_PARAM}=[\\w-]+$`));
  });

  it("offers a guest sign-up and sign-in coming back here, and no account settings, teams or sign-out", async () => {
    renderWith({ user: { primaryEmail: null, displayName: null, isAnonymous: true }, teams: TEAMS }, <UserButton />);
    fireEvent.click(screen.getByRole("button", { name: "Account menu, Guest" }));
    const menu = await screen.findByRole("menu");
    expect(within(menu).getAllByRole("menuitem").map((item) => item.textContent)).toEqual(["Sign up", "Sign in"]);
    expect(within(menu).queryAllByRole("menuitemradio")).toEqual([]);
    expect(screen.getByTestId("user-button-menu").textContent).toContain("Sign up to keep your data.");
    fireEvent.click(within(menu).getByRole("menuitem", { name: "Sign up" }));
    expect(screen.getByTestId("where").textContent).toMatch(/^\/handler\/sign-up\?\w+=%2F$/);
    expect(screen.queryByRole("menu")).toBeNull();
    fireEvent.click(screen.getByRole("button", { name: /Account menu/ }));
    fireEvent.click(await screen.findByRole("menuitem", { name: "Sign in" }));
    expect(screen.getByTestId("where").textContent).toMatch(/^\/handler\/sign-in\?\w+=/);
  });

  it("closes on a press outside it and when the focus leaves it", async () => {
    renderWith({ user: ADA }, <><UserButton /><button>elsewhere</button></>);
    fireEvent.click(screen.getByRole("button", { name: /Account menu/ }));
    await screen.findByRole("menu");
    fireEvent.pointerDown(document.body);
    expect(screen.queryByRole("menu")).toBeNull();
    fireEvent.click(screen.getByRole("button", { name: /Account menu/ }));
    const item = await screen.findByRole("menuitem", { name: "Account settings" });
    fireEvent.blur(item, { relatedTarget: screen.getByRole("button", { name: "elsewhere" }) });
    expect(screen.queryByRole("menu")).toBeNull();
  });

  it("takes other texts and a fixed palette", () => {
    renderWith({ user: ADA }, <UserButton colorScheme="dark" className="mine" texts={{ accountMenu: (name) => `Konto von ${name}` }} />);
    const root = screen.getByTestId("user-button");
    expect(root.getAttribute("data-color-scheme")).toBe("dark");
    expect(root.className).toBe("authmw-ui authmw-user-button mine");
    expect(screen.getByRole("button", { name: "Konto von Ada Lovelace" })).toBeTruthy();
  });
});

describe("SelectedTeamSwitcher", () => {
  const openMenu = async () => {
    fireEvent.click(await screen.findByRole("button", { name: /^Team menu, / }));
    return screen.getByRole("menu");
  };

  it("renders nothing signed out, and says so when the user has no team", async () => {
    const { container } = renderWith({ user: null }, <SelectedTeamSwitcher />);
    expect(container.querySelector("[data-testid=team-switcher]")).toBeNull();
    cleanup();
    renderWith({ user: ADA }, <SelectedTeamSwitcher />);
    expect(await screen.findByText("No teams yet")).toBeTruthy();
    await act(async () => {}); // the project loads: team creation is off
    const menu = await openMenu();
    expect(within(menu).queryByRole("menuitem", { name: "Create a team" })).toBeNull();
  });

  it("selects one of the user's teams in its menu, the current one checked", async () => {
    const changed: string[] = [];
    renderWith({ user: ADA, teams: TEAMS }, <SelectedTeamSwitcher onChange={(team) => changed.push(team.displayName)} />);
    const trigger = await screen.findByRole("button", { name: "Team menu, No team selected" });
    fireEvent.click(trigger);
    const radios = within(screen.getByRole("menu")).getAllByRole("menuitemradio");
    expect(radios.map((radio) => [radio.textContent, radio.getAttribute("aria-checked")])).toEqual([
      ["DDesign", "false"],
      ["OOperations", "false"],
    ]);
    // No current team: nothing to manage yet.
    expect(screen.queryByRole("menuitem", { name: "Manage teams" })).toBeNull();
    fireEvent.click(radios[1]!);
    await waitFor(() => expect(screen.getByTestId("who").textContent).toBe("ada@example.com in t-ops"));
    expect(changed).toEqual(["Operations"]);
    await waitFor(() => expect(screen.queryByRole("menu")).toBeNull());
    expect(screen.getByRole("button", { name: "Team menu, Operations" })).toBe(trigger);
    const menu = await openMenu();
    expect(within(menu).getByRole("menuitemradio", { name: "Operations" }).getAttribute("aria-checked")).toBe("true");
    expect(within(menu).getByRole("menuitem", { name: "Manage teams" }).getAttribute("href")).toBe("/handler/account-settings/teams");
  });

  it("creates a team when the project allows it, selects it, and checks the name first", async () => {
    renderWith({ user: ADA, projectConfig: { clientTeamCreationEnabled: true } }, <SelectedTeamSwitcher />);
    const trigger = await screen.findByRole("button", { name: "Team menu, No teams yet" });
    await act(async () => {}); // the project loads: team creation is on
    fireEvent.click(within(await openMenu()).getByRole("menuitem", { name: "Create a team" }));
    const name = screen.getByRole("textbox", { name: "Team name" });
    await waitFor(() => expect(document.activeElement).toBe(name));
    fireEvent.click(screen.getByRole("button", { name: "Create team" }));
    expect(screen.getByRole("alert").textContent).toBe("Enter a name for the team.");
    expect(name.getAttribute("aria-invalid")).toBe("true");
    // Escape closes the form and returns to the switcher.
    fireEvent.keyDown(name, { key: "Escape" });
    expect(screen.queryByRole("textbox")).toBeNull();
    expect(document.activeElement).toBe(trigger);
    fireEvent.click(within(await openMenu()).getByRole("menuitem", { name: "Create a team" }));
    fireEvent.change(screen.getByRole("textbox", { name: "Team name" }), { target: { value: "  Research " } });
    fireEvent.click(screen.getByRole("button", { name: "Create team" }));
    await waitFor(() => expect(screen.getByRole("button", { name: "Team menu, Research" })).toBe(trigger));
    expect(screen.getByTestId("who").textContent).toMatch(/^ada@example.com in /);
    expect(screen.queryByRole("textbox")).toBeNull();
  });

  it("offers no creation with allowCreate={false} whatever the project allows", async () => {
    renderWith({ user: ADA, teams: TEAMS, projectConfig: { clientTeamCreationEnabled: true } }, <SelectedTeamSwitcher allowCreate={false} />);
    await act(async () => {});
    const menu = await openMenu();
    expect(within(menu).getAllByRole("menuitemradio")).toHaveLength(2);
    expect(within(menu).queryByRole("menuitem", { name: "Create a team" })).toBeNull();
  });
});

describe("refusals", () => {
  // The testing controller with its team calls failing, as a lost connection would make them.
  function renderFailing(children: ReactNode) {
    const controller = createTestingController({ user: { ...ADA, selectedTeamId: "t-design" }, teams: TEAMS, projectConfig: { clientTeamCreationEnabled: true } });
    controller.selectTeam = async () => {
      throw new Error("offline");
    };
    controller.teams.create = async () => {
      throw new Error("offline");
    };
    return render(
      <MemoryRouter>
        <AuthProvider projectId="p" baseUrl="http://localhost:1" client={controller} redirectMethod="router">
          {children}
          <Who />
        </AuthProvider>
      </MemoryRouter>,
    );
  }

  it("the menu says a team could not be selected and stays open", async () => {
    renderFailing(<UserButton />);
    fireEvent.click(screen.getByRole("button", { name: /Account menu/ }));
    fireEvent.click(await screen.findByRole("menuitemradio", { name: "Operations" }));
    expect((await screen.findByRole("alert")).textContent).toBe("The team could not be selected. Please try again.");
    expect(screen.getByRole("menu")).toBeTruthy();
    expect(screen.getByRole("menuitemradio", { name: "Design" }).getAttribute("aria-checked")).toBe("true");
    expect(screen.getByTestId("who").textContent).toBe("ada@example.com in t-design");
  });

  it("the switcher keeps the selected team and says why, and the creation form keeps its name", async () => {
    renderFailing(<SelectedTeamSwitcher />);
    const trigger = await screen.findByRole("button", { name: "Team menu, Design" });
    fireEvent.click(trigger);
    fireEvent.click(within(screen.getByRole("menu")).getByRole("menuitemradio", { name: "Operations" }));
    expect((await screen.findByRole("alert")).textContent).toBe("The team could not be selected. Please try again.");
    expect(screen.getByRole("button", { name: "Team menu, Design" })).toBe(trigger);
    expect(trigger.getAttribute("aria-describedby")).toBe(screen.getByRole("alert").id);
    fireEvent.click(within(screen.getByRole("menu")).getByRole("menuitem", { name: "Create a team" }));
    fireEvent.change(screen.getByRole("textbox", { name: "Team name" }), { target: { value: "Research" } });
    fireEvent.click(screen.getByRole("button", { name: "Create team" }));
    expect(await screen.findByText("The team could not be created. Please try again.")).toBeTruthy();
    expect((screen.getByRole("textbox", { name: "Team name" }) as HTMLInputElement).value).toBe("Research");
  });
});

describe("the components' helpers", () => {
  it("initials of names and e-mail addresses", () => {
    expect(initials("Ada Lovelace")).toBe("AL");
    expect(initials("ada.lovelace@example.com")).toBe("AL");
    expect(initials("grace@example.com")).toBe("G");
    expect(initials("Émile  du Châtelet")).toBe("ÉC");
    expect(initials("  ")).toBe("?");
  });

  it("the stylesheet reads only variables the palettes set (or the pages' radius and font)", () => {
    const read = new Set([...COMPONENT_STYLES.matchAll(/var\((--authmw-[a-z-]+)\)/g)].map((m) => m[1]));
    const set = new Set([...COMPONENT_STYLES.matchAll(/(--authmw-[a-z-]+):/g)].map((m) => m[1]));
    expect([...read].filter((name) => !set.has(name))).toEqual([]);
    expect(COMPONENT_STYLES).toContain(":where(.authmw-ui[data-color-scheme=dark])");
  });
});
