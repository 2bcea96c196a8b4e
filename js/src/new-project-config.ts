// What the pages assume of a project before its configuration has loaded (and what the testing
// fake starts from). A module of its own: models.ts is part of every app's first load, which
// has no use for this.
import type { ProjectConfig } from "./models.js";

/** The configuration of a new project (service-api A5.2): password sign-in only. */
export const NEW_PROJECT_CONFIG: Readonly<ProjectConfig> = Object.freeze({
  signUpEnabled: true,
  credentialEnabled: true,
  magicLinkEnabled: false,
  passkeyEnabled: false,
  clientTeamCreationEnabled: false,
  clientUserDeletionEnabled: false,
  allowUserApiKeys: false,
  allowTeamApiKeys: false,
  oauthProviders: [],
});
