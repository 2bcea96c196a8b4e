import { createContext, useContext } from "react";
import type { Locale } from "@authmw/react";

/** The languages of @authmw/react/locales: one import() each, so each is a chunk of its own, loaded only when chosen. */
const LANGUAGES: Record<string, () => Promise<{ default: Locale }>> = {
  de: () => import("@authmw/react/locales/de"),
  es: () => import("@authmw/react/locales/es"),
  fr: () => import("@authmw/react/locales/fr"),
  ja: () => import("@authmw/react/locales/ja"),
  "pt-BR": () => import("@authmw/react/locales/pt-BR"),
  "zh-CN": () => import("@authmw/react/locales/zh-CN"),
};
const STORAGE_KEY = "authmw-example-lang";

/**
 * The language of this tab: `?lang=de` (any key of LANGUAGES) chooses it and is kept in the tab's
 * sessionStorage, so that links, redirects and e-mail links opened in the tab keep it; `?lang=en`
 * goes back to English. Null for English (the package's own texts).
 */
export async function loadLanguage(): Promise<Locale | null> {
  const asked = new URLSearchParams(window.location.search).get("lang");
  if (asked !== null) {
    if (Object.hasOwn(LANGUAGES, asked)) sessionStorage.setItem(STORAGE_KEY, asked);
    else sessionStorage.removeItem(STORAGE_KEY);
  }
  const lang = sessionStorage.getItem(STORAGE_KEY);
  if (!lang || !Object.hasOwn(LANGUAGES, lang)) return null;
  const locale = (await LANGUAGES[lang]!()).default;
  document.documentElement.lang = locale.messages.lang; // screen readers read the page in its language
  return locale;
}

export const LocaleContext = createContext<Locale | null>(null);

/** The chosen language (null: English), for the components' `texts`. */
export const useLocale = (): Locale | null => useContext(LocaleContext);
