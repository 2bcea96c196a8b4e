import { useEffect, useId, useRef, useState, type FormEvent } from "react";
import type { CurrentUser, Team } from "../../models.js";
import { useProject, useTeams, useUser } from "../hooks.js";
import { AuthLink } from "../auth-link.js";
import { useAuth } from "../use-auth.js";
import { Avatar } from "./avatar.js";
import { CheckIcon, ChevronIcon, GearIcon, PlusIcon, TeamsIcon } from "./icons.js";
import { useMenuButton } from "./menu.js";
import { ComponentStyles, rootProps, type ComponentStyleProps } from "./theme.js";
import { textsWith, type ComponentTexts } from "./texts.js";

export interface SelectedTeamSwitcherProps extends ComponentStyleProps {
  /**
   * Offer to create a team (which is then selected). Default: when the project allows client
   * team creation; the service refuses it otherwise, whatever this says.
   */
  allowCreate?: boolean;
  /** Called after the user selected (or created and selected) a team. */
  onChange?(team: Team): void;
  /** Any part of the texts replaced (DEFAULT_COMPONENT_TEXTS). */
  texts?: Partial<ComponentTexts>;
}

/**
 * The signed-in user's selected team as a menu button (the ARIA pattern, as the UserButton):
 * the team's picture and name; the menu lists the user's teams with their pictures, the current
 * one checked, then "Manage team" (account settings) and "Create a team" when the project allows
 * it (a small form; the new team is selected). Narrow enough for a 320 px phone: a long name
 * is cut with an ellipsis. Nothing for a signed-out visitor.
 */
export function SelectedTeamSwitcher({ colorScheme, className, texts, ...props }: SelectedTeamSwitcherProps) {
  const state = useUser();
  if (state.status === "signed-out") return null;
  const t = textsWith(texts);
  return (
    <span {...rootProps("authmw-team-switcher", className, colorScheme)} data-testid="team-switcher">
      <ComponentStyles />
      {state.status === "loading" ? (
        <span className="authmw-ui-hint" role="status">
          {t.loadingTeams}
        </span>
      ) : (
        <Switcher user={state.user} t={t} {...props} />
      )}
    </span>
  );
}

/**
 * Which side the menu lines up with: the switcher's left edge when a menu of the popover's
 * widest size fits to the right of it (a switcher on the left of a header), else its right edge
 * (a switcher at the end of a phone's header).
 */
function alignFor(trigger: HTMLElement | null): string {
  const left = trigger?.getBoundingClientRect().left ?? 0;
  return left + 320 <= document.documentElement.clientWidth ? "authmw-popover-start" : "";
}

type SwitcherProps = Omit<SelectedTeamSwitcherProps, "colorScheme" | "className" | "texts"> & {
  user: CurrentUser;
  t: ComponentTexts;
};

function Switcher({ user, t, allowCreate, onChange }: SwitcherProps) {
  const teams = useTeams();
  const project = useProject();
  const selectTeam = useAuth((a) => a.selectTeam);
  const urls = useAuth((a) => a.urls);
  const { open, setOpen, close, root, trigger, menu, onTriggerKey, onMenuKey, onRootBlur } = useMenuButton();
  const [pending, setPending] = useState(false);
  const [failed, setFailed] = useState(false);
  const [creating, setCreating] = useState(false);
  const [align, setAlign] = useState("");
  const id = useId();
  const canCreate = allowCreate ?? (project.status === "ready" && project.value.config.clientTeamCreationEnabled);

  const choose = async (team: Team) => {
    setPending(true);
    setFailed(false);
    try {
      await selectTeam(team.id);
      onChange?.(team);
      return true;
    } catch {
      setFailed(true);
      return false;
    } finally {
      setPending(false);
    }
  };

  if (teams.status === "loading") {
    return (
      <span className="authmw-ui-hint" role="status">
        {t.loadingTeams}
      </span>
    );
  }
  const list = teams.status === "ready" ? teams.value : [];
  const current = list.find((team) => team.id === user.selectedTeamId) ?? null;
  const label = current ? current.displayName : list.length === 0 ? t.noTeams : t.noTeamSelected;
  return (
    <span ref={root} className="authmw-menu-button" onBlur={onRootBlur}>
      <button
        ref={trigger}
        type="button"
        className="authmw-trigger authmw-team-trigger"
        id={`${id}-button`}
        aria-haspopup="menu"
        aria-expanded={open !== null}
        aria-controls={open ? `${id}-menu` : undefined}
        aria-describedby={failed ? `${id}-error` : undefined}
        aria-busy={pending || undefined}
        onClick={() => {
          setCreating(false);
          setAlign(alignFor(trigger.current));
          setOpen(open ? null : "first");
        }}
        onKeyDown={onTriggerKey}
        data-testid="team-switcher-trigger"
        data-team-id={current?.id ?? ""}
      >
        {current ? <Avatar name={current.displayName} imageUrl={current.profileImageUrl} size="small" /> : <TeamsIcon />}
        <span className="authmw-team-trigger-label" aria-hidden="true" data-testid={list.length === 0 ? "team-switcher-empty" : "team-switcher-current"}>
          {label}
        </span>
        <span className="authmw-sr-only">{t.teamMenu(label)}</span>
        <ChevronIcon />
      </button>
      {open && (
        <div className={`authmw-popover ${align}`} tabIndex={-1} onKeyDown={onMenuKey} data-testid="team-switcher-menu">
          <div role="menu" id={`${id}-menu`} aria-labelledby={`${id}-button`} ref={menu}>
            {teams.status === "error" && (
              <span className="authmw-ui-error authmw-menu-error" role="alert">
                {t.teamsNotLoaded}
              </span>
            )}
            {list.length > 0 && (
              <div role="group" aria-labelledby={`${id}-teams`}>
                <div className="authmw-menu-label" id={`${id}-teams`}>
                  {t.teams}
                </div>
                {list.map((team) => (
                  <button
                    key={team.id}
                    type="button"
                    role="menuitemradio"
                    aria-checked={team.id === current?.id}
                    tabIndex={-1}
                    className="authmw-menu-item"
                    aria-disabled={pending || undefined}
                    onClick={async () => {
                      if (pending) return;
                      if (team.id === current?.id || (await choose(team))) close(true);
                    }}
                  >
                    <Avatar name={team.displayName} imageUrl={team.profileImageUrl} size="small" />
                    <span className="authmw-menu-item-label">{team.displayName}</span>
                    {team.id === current?.id && <CheckIcon />}
                  </button>
                ))}
              </div>
            )}
            {list.length > 0 && <div role="separator" />}
            {current && (
              <AuthLink
                to={`${urls.accountSettings}/teams`}
                role="menuitem"
                tabIndex={-1}
                className="authmw-menu-item"
                onClick={() => close(false)}
                data-testid="team-switcher-manage"
              >
                <GearIcon />
                <span className="authmw-menu-item-label">{t.manageTeam}</span>
              </AuthLink>
            )}
            {canCreate && (
              <button
                type="button"
                role="menuitem"
                tabIndex={-1}
                className="authmw-menu-item"
                onClick={() => {
                  close(false);
                  setCreating(true);
                }}
                data-testid="team-switcher-create"
              >
                <PlusIcon />
                <span className="authmw-menu-item-label">{t.createTeam}</span>
              </button>
            )}
            {!current && !canCreate && list.length === 0 && <span className="authmw-ui-hint authmw-menu-error">{t.noTeams}</span>}
          </div>
        </div>
      )}
      {creating && (
        <CreateTeam
          t={t}
          align={align}
          close={() => {
            setCreating(false);
            trigger.current?.focus();
          }}
          onCreated={async (team) => {
            setCreating(false);
            await choose(team);
            trigger.current?.focus();
          }}
        />
      )}
      {failed && (
        <span className="authmw-sr-only" role="alert" id={`${id}-error`}>
          {t.teamNotSelected}
        </span>
      )}
    </span>
  );
}

/** The new-team form, in a popover under the switcher; Escape or Cancel closes it. */
function CreateTeam({ t, align, close, onCreated }: { t: ComponentTexts; align: string; close(): void; onCreated(team: Team): Promise<void> }) {
  const teams = useAuth((auth) => auth.teams);
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  const id = useId();

  useEffect(() => input.current?.focus(), []);

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const displayName = input.current?.value.trim() ?? "";
    if (!displayName) {
      setError(t.teamNameRequired);
      input.current?.focus();
      return;
    }
    setPending(true);
    setError(null);
    try {
      const team = await teams.create({ displayName });
      await onCreated(team);
    } catch {
      setError(t.teamNotCreated);
      setPending(false);
    }
  };

  return (
    <form
      className={`authmw-popover ${align} authmw-team-form`}
      aria-label={t.createTeam}
      noValidate
      aria-busy={pending}
      onSubmit={submit}
      onKeyDown={(event) => {
        if (event.key === "Escape") {
          event.preventDefault();
          close();
        }
      }}
      data-testid="team-switcher-form"
    >
      <label htmlFor={`${id}-name`}>{t.teamName}</label>
      <input
        ref={input}
        id={`${id}-name`}
        name="teamName"
        autoComplete="off"
        aria-invalid={error === t.teamNameRequired || undefined}
        aria-describedby={error ? `${id}-error` : undefined}
      />
      {error && (
        <p className="authmw-ui-error" id={`${id}-error`} role="alert">
          {error}
        </p>
      )}
      <div className="authmw-team-form-actions">
        <button type="button" className="authmw-ui-button" onClick={close}>
          {t.cancel}
        </button>
        <button type="submit" className="authmw-ui-button authmw-ui-primary" disabled={pending}>
          {pending ? t.creating : t.create}
        </button>
      </div>
    </form>
  );
}

