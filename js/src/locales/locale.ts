import type { ComponentTexts } from "../react/components/texts.js";
import type { Messages } from "../react/messages.js";

/**
 * One language: the default export of each `@authmw/react/locales/*` module. `messages` go to
 * <AuthHandler messages> (`messages.lang` is the language's BCP 47 tag), `texts` to the
 * components' `texts` (UserButton, SelectedTeamSwitcher). Every key of DEFAULT_MESSAGES and
 * DEFAULT_COMPONENT_TEXTS, so a missing one is a type error.
 */
export interface Locale {
  readonly messages: Messages;
  readonly texts: ComponentTexts;
}
