import { useCallback, useEffect, useId, useState, type ReactNode } from "react";
import { hasOtherSignInMethod } from "../../../account-rules.js";
import type { OAuthProviderAccount } from "../../../provider-accounts.js";
import type { Messages } from "../../messages.js";
import { useFocusSwap } from "./focus-swap.js";
import { useSectionKit } from "./kit.js";
import type { SectionProps } from "./section.js";

const checkStyle = { display: "flex", alignItems: "flex-start", gap: "0.5rem", fontWeight: 400 } as const;
const boxStyle = { width: "1.1rem", height: "1.1rem", margin: "0.15rem 0 0", flex: "none", accentColor: "var(--authmw-accent)" } as const;

/**
 * The user's linked OAuth accounts, and "Connect {provider}" for each other provider the project
 * enables (the link flow: type=link with the user's token; back to this page afterwards). On API
 * 2.8 each account is a row with its two switches (sign in with it; let the app use it) and
 * "Remove"; the page refuses to remove or stop signing in with the user's only way to sign in.
 */
function ConnectedAccounts({ user, config }: SectionProps) {
  const { useMessages, useAuth, useSubmit, FormError, Status, useProviderLogos, providerName, describeError, HttpStatusError } = useSectionKit();
  /** A plain 400 on a flag change: another account of the provider already signs the user in. */
  const describeChange = (error: unknown, messages: Messages) =>
    error instanceof HttpStatusError && error.status === 400 ? messages.errorProviderSignInTaken : describeError(error, messages);
  const auth = useAuth();
  const m = useMessages();
  // undefined: loading; null: API 2.7 (no provider accounts); "error": could not load.
  const [accounts, setAccounts] = useState<OAuthProviderAccount[] | null | undefined | "error">(undefined);
  const load = useCallback(async () => {
    try {
      setAccounts(await auth.providerAccounts.list());
    } catch {
      setAccounts("error");
    }
  }, [auth.providerAccounts]);
  useEffect(() => void load(), [load]);
  const action = useSubmit(describeChange);
  const [done, setDone] = useState<string | null>(null);
  const [confirming, setConfirming] = useState<string | null>(null);
  const logos = useProviderLogos();

  const linked = new Set(user.oauthProviders.map((p) => p.id));
  const available = (config?.oauthProviders ?? []).map((p) => p.id).filter((id) => !linked.has(id));
  const list = Array.isArray(accounts) ? accounts : null;

  async function change(account: OAuthProviderAccount, update: Partial<Pick<OAuthProviderAccount, "allowSignIn" | "allowConnectedAccounts">>, message: string) {
    setDone(null);
    const outcome = await action.run(() => auth.providerAccounts.update(account.id, update));
    await load();
    if (outcome.ok) setDone(message);
  }

  async function remove(account: OAuthProviderAccount) {
    setDone(null);
    const outcome = await action.run(() => auth.providerAccounts.remove(account.id));
    setConfirming(null);
    await load();
    if (outcome.ok) setDone(m.providerAccountRemoved(providerName(account.type)));
  }

  /** Refuses (with a sentence) what would leave the user no way to sign in; true when allowed. */
  function keepsASignInMethod(account: OAuthProviderAccount): boolean {
    if (!list || !account.allowSignIn || hasOtherSignInMethod(user, list, account.id)) return true;
    setDone(null);
    action.setError(m.errorLastSignInMethod);
    return false;
  }

  return (
    <div className="authmw-stack" data-testid="connected-accounts">
      {accounts === undefined ? (
        <p role="status" className="authmw-hint">
          {m.loading}
        </p>
      ) : accounts === "error" ? (
        <p role="alert" className="authmw-error">
          {m.couldNotLoadProviderAccounts}
        </p>
      ) : list === null ? (
        // API 2.7: the links of the user object, without switches.
        user.oauthProviders.length === 0 ? (
          <p className="authmw-hint">{m.noConnectedAccounts}</p>
        ) : (
          <ul className="authmw-list" aria-label={m.connectedAccountsSection}>
            {user.oauthProviders.map((p) => (
              <li key={`${p.id}:${p.accountId}`} data-testid={`connected-${p.id}`}>
                <strong>{providerName(p.id)}</strong>
                {p.email ? ` · ${p.email}` : ""} <span className="authmw-badge">{m.connectedBadge}</span>
              </li>
            ))}
          </ul>
        )
      ) : list.length === 0 ? (
        <p className="authmw-hint">{m.noConnectedAccounts}</p>
      ) : (
        <ul className="authmw-list" aria-label={m.connectedAccountsSection}>
          {list.map((account) => (
            <ProviderAccountRow
              key={account.id}
              account={account}
              logo={logos[account.type]}
              pending={action.pending}
              confirming={confirming === account.id}
              onSignIn={(on) => {
                if (!on && !keepsASignInMethod(account)) return;
                const name = providerName(account.type);
                void change(account, { allowSignIn: on }, on ? m.providerAccountSignInOn(name) : m.providerAccountSignInOff(name));
              }}
              onApps={(on) => void change(account, { allowConnectedAccounts: on }, m.providerAccountSaved)}
              onRemove={() => {
                if (keepsASignInMethod(account)) {
                  action.setError(null);
                  setConfirming(account.id);
                }
              }}
              onConfirm={() => void remove(account)}
              onCancel={() => setConfirming(null)}
            />
          ))}
        </ul>
      )}
      <FormError message={action.error} />
      <Status message={done} testId="provider-accounts-done" />
      {available.length > 0 && <ConnectRows ids={available} logos={logos} />}
    </div>
  );
}

/** A row per provider the user has no account of: its logo and name, and "Connect" (named "Connect GitHub"). */
function ConnectRows({ ids, logos }: { ids: string[]; logos: Record<string, ReactNode> }) {
  const { useMessages, useAuth, useProviderAction, providerName, ProviderLogo } = useSectionKit();
  const m = useMessages();
  const auth = useAuth();
  const { pending, error, run } = useProviderAction((id) => auth.oauth.link(id));
  const headingId = useId();
  return (
    <div role="group" aria-labelledby={headingId}>
      <h3 id={headingId}>{m.connectAnotherAccount}</h3>
      <ul className="authmw-list">
        {ids.map((id) => (
          <li key={id} className="authmw-row">
            <span className="authmw-row-main">
              <ProviderLogo logos={logos} id={id} />
              <strong className="authmw-row-title">{providerName(id)}</strong>
            </span>
            <span className="authmw-row-actions">
              <button
                type="button"
                className="authmw-small"
                data-provider={id}
                data-testid={`connect-${id}`}
                disabled={pending !== null}
                aria-busy={pending === id}
                aria-label={pending === id ? undefined : m.connectProvider(providerName(id))}
                onClick={() => void run(id)}
              >
                {pending === id ? m.redirectingTo(providerName(id)) : m.connect}
              </button>
            </span>
          </li>
        ))}
      </ul>
      {error && (
        <p role="alert" className="authmw-error" data-testid="auth-error">
          {error}
        </p>
      )}
    </div>
  );
}

/** A labelled on/off switch (a checkbox with role switch); `hintId` names the element that describes it. */
function Switch(props: { on: boolean; disabled: boolean; onChange(on: boolean): void; testId: string; hintId?: string; children: ReactNode }) {
  return (
    <label style={checkStyle}>
      <input
        type="checkbox"
        role="switch"
        style={boxStyle}
        checked={props.on}
        disabled={props.disabled}
        aria-describedby={props.hintId}
        onChange={(event) => props.onChange(event.currentTarget.checked)}
        data-testid={props.testId}
      />
      <span>{props.children}</span>
    </label>
  );
}

interface RowProps {
  account: OAuthProviderAccount;
  logo: ReactNode;
  pending: boolean;
  confirming: boolean;
  onSignIn(on: boolean): void;
  onApps(on: boolean): void;
  onRemove(): void;
  onConfirm(): void;
  onCancel(): void;
}

function ProviderAccountRow({ account, logo, pending, confirming, onSignIn, onApps, onRemove, onConfirm, onCancel }: RowProps) {
  const { useMessages, providerName } = useSectionKit();
  const m = useMessages();
  const hintId = useId();
  const name = providerName(account.type);
  const shown = account.email ?? account.accountId ?? "";
  const { inside: confirmRef, opener: openRef } = useFocusSwap<HTMLButtonElement, HTMLButtonElement>(confirming);

  return (
    <li className="authmw-row" data-testid={`connected-${account.type}`} data-provider-account-id={account.id}>
      {/* The logo stays beside the name and e-mail, however narrow the window. */}
      <span className="authmw-row-main" style={{ flexWrap: "nowrap", alignItems: "flex-start" }}>
        <svg className="authmw-provider-logo" aria-hidden="true" width="24" height="24" viewBox="0 0 24 24" style={{ flex: "none", marginTop: "0.1rem" }}>
          {logo}
        </svg>
        <span className="authmw-row-stack authmw-row-main" style={{ minWidth: 0 }}>
          <span>
            <strong className="authmw-row-title">{m.providerAccountTitle(name)}</strong> <span className="authmw-badge">{m.connectedBadge}</span>
          </span>
          {shown && <span className="authmw-hint">{shown}</span>}
        </span>
      </span>
      <span className="authmw-row-actions" style={{ flexDirection: "column", alignItems: "stretch", flexBasis: "100%" }}>
        <Switch on={account.allowSignIn} disabled={pending} onChange={onSignIn} testId="provider-sign-in">
          {m.providerAccountUseToSignIn}
        </Switch>
        <Switch on={account.allowConnectedAccounts} disabled={pending} onChange={onApps} testId="provider-connected-apps" hintId={hintId}>
          {m.providerAccountUseForApps}
          <span id={hintId} className="authmw-hint" style={{ display: "block" }}>
            {m.providerAccountUseForAppsHint}
          </span>
        </Switch>
        {confirming ? (
          <div
            className="authmw-confirm"
            role="group"
            aria-label={m.providerAccountRemoveLabel(name, shown)}
            onKeyDown={(event) => {
              if (event.key === "Escape" && !pending) {
                event.stopPropagation();
                onCancel();
              }
            }}
          >
            <p className="authmw-hint">{m.providerAccountRemoveQuestion(name)}</p>
            <div className="authmw-actions">
              <button ref={confirmRef} type="button" className="authmw-danger" disabled={pending} onClick={onConfirm} data-testid="provider-remove-confirm">
                {m.providerAccountConfirmRemove}
              </button>
              <button type="button" disabled={pending} onClick={onCancel}>
                {m.cancel}
              </button>
            </div>
          </div>
        ) : (
          <span>
            <button
              ref={openRef}
              type="button"
              className="authmw-small"
              disabled={pending}
              onClick={onRemove}
              aria-label={m.providerAccountRemoveLabel(name, shown)}
              data-testid="provider-remove"
            >
              {m.providerAccountRemove}
            </button>
          </span>
        )}
      </span>
    </li>
  );
}

export default ConnectedAccounts;
