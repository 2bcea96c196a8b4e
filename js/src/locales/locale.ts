import type { ComponentTexts } from "../react/components/texts";
import type { Messages } from "../react/messages";

/**
 * One language: the default export of each `@authmw/react/locales/*` module. `messages` go to
 * <AuthHandler messages>, `texts` to the components' `texts` (UserButton, SelectedTeamSwitcher).
 * Every key of DEFAULT_MESSAGES and DEFAULT_COMPONENT_TEXTS, so a missing one is a type error.
 */
export interface Locale {
  /** The language's BCP 47 tag ("de", "pt-BR"). */
  readonly lang: string;
  readonly messages: Messages;
  readonly texts: ComponentTexts;
}
