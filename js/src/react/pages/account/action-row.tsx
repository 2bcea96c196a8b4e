import { useCallback, useId, useState, type ReactNode } from "react";
import { useFocusSwap } from "./focus-swap.js";
import { useSectionKit } from "./kit.js";

/**
 * A setting as a row: its title, what it is now, and one action ("Change", "Add") that opens its
 * form in place. `children(cancel, close)` renders the form: `cancel` is its Cancel button, `close`
 * closes it (after a success). Focus goes to the form's first field on opening and back to the
 * action on closing; Escape closes too. The open form is a group named by the row's title (its
 * heading); its fields carry labels of their own ("E-mail", not the title again).
 */
export function ActionRow(props: {
  title: string;
  summary?: ReactNode;
  action: string;
  testId: string;
  children(cancel: ReactNode, close: () => void): ReactNode;
}) {
  const m = useSectionKit().useMessages();
  const [open, setOpen] = useState(false);
  const titleId = useId();
  const { inside: area, opener: button } = useFocusSwap<HTMLDivElement, HTMLButtonElement>(open, (form) =>
    form.querySelector<HTMLElement>("input, select, textarea"),
  );
  const close = useCallback(() => setOpen(false), []);
  const cancel = (
    <button type="button" onClick={close} data-testid={`${props.testId}-cancel`}>
      {m.cancel}
    </button>
  );
  return (
    <div className="authmw-action-row" data-testid={`${props.testId}-row`} data-open={open}>
      <div className="authmw-row">
        <span className="authmw-row-main authmw-row-stack">
          <strong className="authmw-row-title" id={titleId}>
            {props.title}
          </strong>
          {props.summary && <span className="authmw-hint">{props.summary}</span>}
        </span>
        {!open && (
          <span className="authmw-row-actions">
            <button ref={button} type="button" className="authmw-small" onClick={() => setOpen(true)} data-testid={`${props.testId}-open`}>
              {props.action}
            </button>
          </span>
        )}
      </div>
      {open && (
        <div
          ref={area}
          className="authmw-action-form"
          role="group"
          aria-labelledby={titleId}
          onKeyDown={(event) => {
            if (event.key === "Escape") {
              event.stopPropagation();
              close();
            }
          }}
        >
          {props.children(cancel, close)}
        </div>
      )}
    </div>
  );
}
