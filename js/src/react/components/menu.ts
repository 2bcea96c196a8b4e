// The ARIA menu button pattern the UserButton and the team switcher share: a trigger that opens
// a menu with Enter, Space or the arrows (focus on the first or last item), arrows, Home and End
// that move and wrap, Escape and Tab that close, and a press or focus outside that closes too.
import { useEffect, useRef, useState, type FocusEvent, type KeyboardEvent } from "react";

const ITEMS = "[role=menuitem], [role=menuitemradio]";

export function useMenuButton() {
  // null: closed; otherwise which item gets the focus when the menu opens.
  const [open, setOpen] = useState<"first" | "last" | null>(null);
  const root = useRef<HTMLSpanElement>(null);
  const trigger = useRef<HTMLButtonElement>(null);
  const menu = useRef<HTMLDivElement>(null);
  const items = () => Array.from(menu.current?.querySelectorAll<HTMLElement>(ITEMS) ?? []);

  useEffect(() => {
    if (!open) return;
    const list = items();
    list[open === "first" ? 0 : list.length - 1]?.focus();
    const outside = (event: PointerEvent) => {
      if (!root.current?.contains(event.target as Node)) setOpen(null);
    };
    document.addEventListener("pointerdown", outside);
    return () => document.removeEventListener("pointerdown", outside);
  }, [open]);

  const close = (returnFocus: boolean) => {
    setOpen(null);
    if (returnFocus) trigger.current?.focus();
  };

  const onTriggerKey = (event: KeyboardEvent<HTMLButtonElement>) => {
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      setOpen(event.key === "ArrowDown" ? "first" : "last");
    }
  };

  const onMenuKey = (event: KeyboardEvent<HTMLDivElement>) => {
    const list = items();
    const at = list.indexOf(document.activeElement as HTMLElement);
    const focus = (index: number) => list[(index + list.length) % list.length]?.focus();
    switch (event.key) {
      case "ArrowDown":
        focus(at + 1);
        break;
      case "ArrowUp":
        focus(at < 0 ? -1 : at - 1);
        break;
      case "Home":
        focus(0);
        break;
      case "End":
        focus(-1);
        break;
      case "Escape":
        close(true);
        break;
      case "Tab":
        // Tab leaves the menu as it would leave the button: to the next element of the page.
        close(true);
        return;
      default:
        return;
    }
    event.preventDefault();
    event.stopPropagation();
  };

  const onRootBlur = (event: FocusEvent<HTMLSpanElement>) => {
    if (open && event.relatedTarget && !root.current?.contains(event.relatedTarget as Node)) setOpen(null);
  };

  return { open, setOpen, close, root, trigger, menu, onTriggerKey, onMenuKey, onRootBlur };
}
