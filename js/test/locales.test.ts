// The six languages of @authmw/react/locales/*: each has every key of DEFAULT_MESSAGES and
// DEFAULT_COMPONENT_TEXTS and no other, each function-valued text takes the same arguments and
// keeps every value the English one shows, and each language is an entry of the package.
import { readFileSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { DEFAULT_COMPONENT_TEXTS } from "../src/react/components/texts";
import { DEFAULT_MESSAGES } from "../src/react/messages";
import de from "../src/locales/de";
import es from "../src/locales/es";
import fr from "../src/locales/fr";
import ja from "../src/locales/ja";
import type { Locale } from "../src/locales/locale";
import ptBR from "../src/locales/pt-BR";
import zhCN from "../src/locales/zh-CN";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const LOCALES: Record<string, Locale> = { de, es, fr, ja, "pt-BR": ptBR, "zh-CN": zhCN };

type Table = Record<string, unknown>;
const TABLES = [
  ["messages", DEFAULT_MESSAGES as Table],
  ["texts", DEFAULT_COMPONENT_TEXTS as unknown as Table],
] as const;

/** What differs between the English table and a language's: keys missing, keys English lacks, and kinds. */
function compareTables(english: Table, other: Table): string[] {
  const problems: string[] = [];
  for (const key of Object.keys(english)) {
    if (!(key in other)) {
      problems.push(`${key}: missing (English: ${JSON.stringify(String(english[key]))})`);
      continue;
    }
    const [want, got] = [english[key], other[key]];
    if (typeof want !== typeof got) problems.push(`${key}: a ${typeof got}, English has a ${typeof want}`);
    else if (typeof want === "function" && (want as Function).length !== (got as Function).length)
      problems.push(`${key}: takes ${(got as Function).length} argument(s), English takes ${(want as Function).length}`);
    else if (typeof got === "string" && !got.trim()) problems.push(`${key}: empty`);
  }
  for (const key of Object.keys(other)) if (!(key in english)) problems.push(`${key}: not a key of English (renamed or removed there?)`);
  return problems;
}

/** Arguments that survive lower-casing and show where each one lands in the sentence. */
const marker = (i: number) => `{{${i}}}`;

/** Each argument the English function shows, the language's shows too; neither says "undefined". */
function comparePlaceholders(english: Table, other: Table): string[] {
  const problems: string[] = [];
  for (const [key, want] of Object.entries(english)) {
    const got = other[key];
    if (typeof want !== "function" || typeof got !== "function") continue;
    // Each argument a marker; then the first a number (a count of 1, a minimum length), where English takes one.
    const variants = [Array.from({ length: want.length }, (_, i): unknown => marker(i))];
    if (want.length) variants.push([1, ...variants[0]!.slice(1)]);
    for (const args of variants) {
      let en: unknown;
      try {
        en = want(...args);
      } catch {
        continue; // English does not take a number there (it lower-cases a name, say)
      }
      if (typeof en !== "string") continue; // a name passed through as it is
      const text: unknown = got(...args);
      if (typeof text !== "string" || !text.trim() || text.includes("undefined")) {
        problems.push(`${key}(${args.join(", ")}) gives ${JSON.stringify(text)}`);
        continue;
      }
      for (let i = 0; i < args.length; i++)
        if (en.includes(marker(i)) && !text.includes(marker(i))) problems.push(`${key}: argument ${i + 1} is not in ${JSON.stringify(text)}`);
    }
  }
  return problems;
}

/**
 * The texts a language may leave as in English (a word both languages use); anything else equal to
 * the English text is an untranslated copy.
 */
const SAME_AS_ENGLISH: Record<string, string[]> = {
  de: ["messages.passkeysSection", "messages.pictureZoom", "messages.teamsSection", "texts.team", "texts.teams"],
  es: ["messages.pictureZoom"],
  fr: ["messages.codeNoun", "messages.email", "messages.notificationsSection", "messages.pictureZoom", "messages.sessionsSection"],
  ja: [],
  "pt-BR": ["messages.email", "messages.pictureZoom"],
  "zh-CN": [],
};

describe.each(Object.entries(LOCALES))("locale %s", (lang, locale) => {
  it.each(TABLES)("has every key of the English %s and no other, of the same kind", (name, english) => {
    expect(compareTables(english, locale[name] as unknown as Table), `${lang} ${name}`).toEqual([]);
  });

  it.each(TABLES)("keeps every value the English %s show", (name, english) => {
    expect(comparePlaceholders(english, locale[name] as unknown as Table), `${lang} ${name}`).toEqual([]);
  });

  it("translates every text (only the listed ones equal English)", () => {
    const same = TABLES.flatMap(([name, english]) =>
      Object.keys(english)
        .filter((key) => typeof english[key] === "string" && (locale[name] as unknown as Table)[key] === english[key])
        .map((key) => `${name}.${key}`),
    );
    expect(same.sort()).toEqual([...SAME_AS_ENGLISH[lang]!].sort());
  });

  it("names its language", () => {
    expect(locale.messages.lang).toBe(lang);
    expect(Intl.getCanonicalLocales(locale.messages.lang)).toEqual([lang]);
  });
});

describe("the checks themselves", () => {
  const english = { a: "A", b: (name: string) => `Hello ${name}`, c: (n: number) => `${n} items` } as Table;

  it("find a missing key, a key English lacks, and a function's kind or arity that differs", () => {
    expect(compareTables(english, { a: "Ä", b: (name: string) => `Hallo ${name}`, c: (n: number) => `${n} Dinge` })).toEqual([]);
    expect(compareTables(english, { b: (name: string) => `Hallo ${name}`, c: (n: number) => `${n}` })).toEqual([
      'a: missing (English: "A")',
    ]);
    expect(compareTables(english, { a: "Ä", b: "Hallo", c: (n: number) => `${n}`, d: "extra" })).toEqual([
      "b: a string, English has a function",
      "d: not a key of English (renamed or removed there?)",
    ]);
    expect(compareTables(english, { a: "Ä", b: () => "Hallo", c: (n: number) => `${n}` })).toEqual([
      "b: takes 0 argument(s), English takes 1",
    ]);
  });

  it("find a placeholder the translation dropped", () => {
    expect(comparePlaceholders(english, { b: (name: string) => `Hallo ${name}`, c: (n: number) => `${n} Dinge` })).toEqual([]);
    expect(comparePlaceholders(english, { b: (_name: string) => "Hallo", c: (n: number) => `${n} Dinge` })).toEqual([
      'b: argument 1 is not in "Hallo"',
    ]);
  });
});

describe("packaging", () => {
  const files = readdirSync(join(root, "src", "locales"))
    .filter((file) => file !== "locale.ts")
    .map((file) => file.replace(/\.ts$/, ""));

  it("tests every language module there is", () => {
    expect(files.sort()).toEqual(Object.keys(LOCALES).sort());
  });

  it("makes each language an entry of its own: package.json exports and the rollup input", () => {
    const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { exports: Record<string, { types: string; import: string }> };
    const rollup = readFileSync(join(root, "rollup.config.mjs"), "utf8");
    const sizes = readFileSync(join(root, "scripts", "bundle-size.mjs"), "utf8");
    for (const lang of files) {
      expect(pkg.exports[`./locales/${lang}`]).toEqual({ types: `./dist/locales/${lang}.d.ts`, import: `./dist/locales/${lang}.js` });
      expect(rollup.includes(`"locales/${lang}": "src/locales/${lang}.ts"`), `rollup.config.mjs builds ${lang}`).toBe(true);
      expect(sizes.includes(`"${lang}"`), `scripts/bundle-size.mjs measures ${lang}`).toBe(true);
    }
  });
});
