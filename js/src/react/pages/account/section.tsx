import type { ReactNode } from "react";
import type { CurrentUser, ProjectConfig } from "../../../models";
import type { Messages } from "../../messages";

/** What every section of the account settings page gets. */
export interface SectionProps {
  user: CurrentUser;
  /** The project's configuration; null while it loads or when it could not be loaded. */
  config: ProjectConfig | null;
}

/** One section of the account settings page: its place in the navigation and its content. */
export interface AccountSection {
  /** Anchor (#authmw-<id>) and test id (settings-<id>). */
  id: string;
  title(m: Messages): string;
  /** False hides the section and its navigation entry (e.g. a method the project has off). */
  shown(props: SectionProps): boolean;
  Component(props: SectionProps): ReactNode;
}

/** The card a section is rendered in, with its heading (h2). */
export function SectionCard({ id, title, children }: { id: string; title: string; children: ReactNode }) {
  return (
    <section
      id={`authmw-${id}`}
      aria-labelledby={`authmw-${id}-heading`}
      className="authmw-section"
      data-testid={`settings-${id}`}
      tabIndex={-1}
    >
      <h2 id={`authmw-${id}-heading`}>{title}</h2>
      {children}
    </section>
  );
}
