import { useEffect, useId, useRef, useState, type FormEvent } from "react";
import type { CurrentUser, Team } from "../../models";
import { useProject, useTeams, useUser } from "../hooks";
import { useAuth } from "../use-auth";
import { ComponentStyles, rootProps, type ComponentStyleProps } from "./theme";
import { textsWith, type ComponentTexts } from "./texts";

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
 * The signed-in user's selected team as a select of their teams, and a button that creates a
 * team when the project allows it. Nothing for a signed-out visitor.
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

type SwitcherProps = Omit<SelectedTeamSwitcherProps, "colorScheme" | "className" | "texts"> & {
  user: CurrentUser;
  t: ComponentTexts;
};

function Switcher({ user, t, allowCreate, onChange }: SwitcherProps) {
  const teams = useTeams();
  const project = useProject();
  const selectTeam = useAuth((auth) => auth.selectTeam);
  const [pending, setPending] = useState(false);
  const [failed, setFailed] = useState(false);
  const [creating, setCreating] = useState(false);
  const select = useRef<HTMLSelectElement>(null);
  const id = useId();
  const canCreate = allowCreate ?? (project.status === "ready" && project.value.config.clientTeamCreationEnabled);

  const choose = async (team: Team) => {
    setPending(true);
    setFailed(false);
    try {
      await selectTeam(team.id);
      onChange?.(team);
    } catch {
      setFailed(true);
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
  const selected = list.some((team) => team.id === user.selectedTeamId) ? user.selectedTeamId! : "";
  return (
    <>
      {teams.status === "error" ? (
        <span className="authmw-ui-error" role="alert">
          {t.teamsNotLoaded}
        </span>
      ) : list.length === 0 ? (
        <span className="authmw-ui-hint" data-testid="team-switcher-empty">
          {t.noTeams}
        </span>
      ) : (
        <>
          <label className="authmw-sr-only" htmlFor={`${id}-select`}>
            {t.team}
          </label>
          <select
            ref={select}
            id={`${id}-select`}
            value={selected}
            disabled={pending}
            aria-busy={pending || undefined}
            aria-describedby={failed ? `${id}-error` : undefined}
            onChange={(event) => {
              const team = list.find((candidate) => candidate.id === event.target.value);
              if (team) void choose(team);
            }}
            data-testid="team-switcher-select"
          >
            {selected === "" && (
              <option value="" disabled>
                {t.noTeamSelected}
              </option>
            )}
            {list.map((team) => (
              <option key={team.id} value={team.id}>
                {team.displayName}
              </option>
            ))}
          </select>
        </>
      )}
      {canCreate && (
        <CreateTeam
          open={creating}
          setOpen={setCreating}
          t={t}
          onCreated={async (team) => {
            await choose(team);
            select.current?.focus();
          }}
        />
      )}
      {failed && (
        <span className="authmw-sr-only" role="alert" id={`${id}-error`}>
          {t.teamNotSelected}
        </span>
      )}
    </>
  );
}

function CreateTeam({
  open,
  setOpen,
  t,
  onCreated,
}: {
  open: boolean;
  setOpen(open: boolean): void;
  t: ComponentTexts;
  onCreated(team: Team): Promise<void>;
}) {
  const teams = useAuth((auth) => auth.teams);
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  const input = useRef<HTMLInputElement>(null);
  const id = useId();

  useEffect(() => {
    if (open) input.current?.focus();
  }, [open]);

  const close = () => {
    setOpen(false);
    setError(null);
    button.current?.focus();
  };

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
      setOpen(false);
      await onCreated(team);
    } catch {
      setError(t.teamNotCreated);
    } finally {
      setPending(false);
    }
  };

  return (
    <span className="authmw-menu-button">
      <button
        ref={button}
        type="button"
        className="authmw-ui-button authmw-icon-button"
        aria-label={t.createTeam}
        title={t.createTeam}
        aria-expanded={open}
        aria-controls={open ? `${id}-form` : undefined}
        onClick={() => (open ? close() : setOpen(true))}
        data-testid="team-switcher-create"
      >
        <svg width="16" height="16" viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth={2} strokeLinecap="round" aria-hidden="true" focusable="false">
          <path d="M12 5v14M5 12h14" />
        </svg>
      </button>
      {open && (
        <form
          id={`${id}-form`}
          className="authmw-popover authmw-team-form"
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
      )}
    </span>
  );
}
