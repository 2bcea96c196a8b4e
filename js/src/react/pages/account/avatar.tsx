// A picture of the user, a member or a team in account settings, or initials without one: a
// part the profile and teams sections share.
import { useState } from "react";
import { useSectionKit } from "./kit.js";

/** The initials of a display name ("Ada Lovelace": "AL"), or the first letter of an e-mail address. */
export const initials = (name: string) =>
  (name.includes("@") ? [name] : name.split(/\s+/))
    .filter(Boolean)
    .slice(0, 2)
    .map((part) => part[0]!.toUpperCase())
    .join("");

/** A picture, or the initials of `name` without one; `alt` names it (default: the user's own picture; "" = decorative). */
export function Avatar({ url, name, alt }: { url: string | null; name: string; alt?: string }) {
  const { useMessages } = useSectionKit();
  const m = useMessages();
  const [broken, setBroken] = useState<string | null>(null);
  if (url && broken !== url) {
    return <img className="authmw-avatar" src={url} alt={alt ?? m.profileImageAlt} onError={() => setBroken(url)} data-testid="avatar-image" />;
  }
  return (
    <span className="authmw-avatar" aria-hidden="true" data-testid="avatar-initials">
      {initials(name) || "?"}
    </span>
  );
}
