import { useEffect, useRef } from "react";

/**
 * Focus for a part that opens in place (a confirmation, a form): into it when `open` turns true
 * (`inside`, or what `pick` finds in it), back to the control that opened it (`opener`) when it
 * closes again. Nothing moves on the first render.
 */
export function useFocusSwap<Inside extends HTMLElement, Opener extends HTMLElement>(
  open: boolean,
  pick: (inside: Inside) => HTMLElement | null = (inside) => inside,
) {
  const inside = useRef<Inside>(null);
  const opener = useRef<Opener>(null);
  const wasOpen = useRef(false);
  useEffect(() => {
    if (open) (inside.current ? pick(inside.current) : null)?.focus();
    else if (wasOpen.current) opener.current?.focus();
    wasOpen.current = open;
    // eslint-disable-next-line react-hooks/exhaustive-deps -- `pick` is a way to look, not a reason to move focus again
  }, [open]);
  return { inside, opener };
}
