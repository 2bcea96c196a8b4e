import { useState } from "react";

/** Up to two letters for a name or an e-mail address: "Ada Lovelace" and "ada.lovelace@x.org" give "AL". */
export function initials(name: string): string {
  const local = name.includes("@") && !name.includes(" ") ? name.slice(0, name.indexOf("@")) : name;
  const words = local.split(/[\s._+-]+/).filter((word) => /\p{L}|\p{N}/u.test(word));
  const first = (word: string | undefined) => (word ? (Array.from(word).find((c) => /\p{L}|\p{N}/u.test(c)) ?? "") : "");
  const letters = words.length > 1 ? first(words[0]) + first(words[words.length - 1]) : first(words[0]);
  return letters.toLocaleUpperCase() || "?";
}

/**
 * The picture of a user or a team, or its initials when it has none (or the picture fails to
 * load). Decorative: the element around it carries the name.
 */
export function Avatar({ name, imageUrl, size }: { name: string; imageUrl: string | null; size?: "small" | "large" }) {
  const [failed, setFailed] = useState<string | null>(null);
  const className = size ? `authmw-avatar authmw-avatar-${size}` : "authmw-avatar";
  if (imageUrl && failed !== imageUrl) {
    return <img className={className} src={imageUrl} alt="" onError={() => setFailed(imageUrl)} />;
  }
  return (
    <span className={className} aria-hidden="true">
      {initials(name)}
    </span>
  );
}
