import type { CurrentUser } from "../../models.js";
import { useUser } from "../hooks.js";
import { Avatar } from "./avatar.js";
import { ComponentStyles, rootProps, type ComponentStyleProps } from "./theme.js";
import type { JSX } from "react";

export interface UserAvatarProps extends ComponentStyleProps {
  /** Whose picture; default the signed-in user (nothing while signed out or loading). */
  user?: Pick<CurrentUser, "displayName" | "primaryEmail" | "profileImageUrl"> | null;
  /** 1.5rem ("small"), 2rem (default) or 2.5rem ("large"). */
  size?: "small" | "large";
}

/**
 * A user's profile picture, or their initials when they have none (the same avatar as the
 * UserButton's). An image to assistive technology, named after the user.
 */
export function UserAvatar({ user, size, colorScheme, className }: UserAvatarProps): JSX.Element | null {
  const state = useUser();
  const who = user === undefined ? state.user : user;
  if (!who) return null;
  const name = who.displayName || who.primaryEmail || "?";
  return (
    <span {...rootProps("authmw-user-avatar", className, colorScheme)} role="img" aria-label={name} data-testid="user-avatar">
      <ComponentStyles />
      <Avatar name={name} imageUrl={who.profileImageUrl} size={size} />
    </span>
  );
}
