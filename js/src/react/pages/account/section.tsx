import type { ComponentType } from "react";
import type { UseAuthResult } from "../../use-auth.js";
import type { CurrentUser, ProjectConfig } from "../../../models.js";
import type { Messages } from "../../messages.js";

/** What every section of the account settings page gets. */
export interface SectionProps {
  user: CurrentUser;
  /** The project's configuration; null while it loads or when it could not be loaded. */
  config: ProjectConfig | null;
}

/**
 * One section of the account settings page: its route ({handler}/account-settings/<id>), its
 * entry in the navigation, and its content.
 */
export interface AccountSection {
  /** Path segment and test id (settings-<id>). */
  id: string;
  title(m: Messages): string;
  /** False hides the section and its navigation entry (e.g. a method the project has off). */
  shown(props: SectionProps): boolean;
  /**
   * Whether the service offers what the section needs (e.g. API 2.8 sessions), asked once per
   * visit; absent means yes. A section whose answer is false (or fails) is left out.
   */
  supported?(auth: UseAuthResult): Promise<boolean>;
  Component: ComponentType<SectionProps>;
}
