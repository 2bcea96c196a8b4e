import { NOTICE_TEXTS, type NoticeTexts } from "./notice-texts.js";

/** The components' texts; each component takes `texts` with any part of them replaced. */
export interface ComponentTexts extends NoticeTexts {
  /** The accessible name of the UserButton: the menu and whose it is. */
  accountMenu(name: string): string;
  /** The name shown for an anonymous user (API 2.8, with allowAnonymous). */
  anonymousUser: string;
  /** The line under a guest's name in the UserButton's menu. */
  guestHint: string;
  signUp: string;
  signIn: string;
  accountSettings: string;
  signOut: string;
  teams: string;
  team: string;
  noTeamSelected: string;
  noTeams: string;
  loadingTeams: string;
  createTeam: string;
  teamName: string;
  create: string;
  creating: string;
  cancel: string;
  teamNameRequired: string;
  teamNotCreated: string;
  teamNotSelected: string;
  teamsNotLoaded: string;
  /** The accessible name of the team switcher: the menu and the current team (or "No team selected"). */
  teamMenu(team: string): string;
  /** The switcher's entry to the teams part of account settings. */
  manageTeam: string;
}

export const DEFAULT_COMPONENT_TEXTS: ComponentTexts = {
  accountMenu: (name) => `Account menu, ${name}`,
  anonymousUser: "Guest",
  guestHint: "Sign up to keep your data.",
  signUp: "Sign up",
  signIn: "Sign in",
  accountSettings: "Account settings",
  signOut: "Sign out",
  teams: "Teams",
  team: "Team",
  noTeamSelected: "No team selected",
  noTeams: "No teams yet",
  loadingTeams: "Loading teams…",
  createTeam: "Create a team",
  teamName: "Team name",
  create: "Create team",
  creating: "Creating…",
  cancel: "Cancel",
  teamNameRequired: "Enter a name for the team.",
  teamNotCreated: "The team could not be created. Please try again.",
  teamNotSelected: "The team could not be selected. Please try again.",
  teamsNotLoaded: "Your teams could not be loaded.",
  teamMenu: (team) => `Team menu, ${team}`,
  manageTeam: "Manage teams",
  ...NOTICE_TEXTS,
};

export function textsWith(overrides: Partial<ComponentTexts> | undefined): ComponentTexts {
  return overrides ? { ...DEFAULT_COMPONENT_TEXTS, ...overrides } : DEFAULT_COMPONENT_TEXTS;
}
