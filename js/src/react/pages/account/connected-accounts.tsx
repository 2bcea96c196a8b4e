import { useSectionKit } from "./kit";
import type { SectionProps } from "./section";

/**
 * The user's linked OAuth accounts, and "Connect {provider}" for each other provider the project
 * enables (the link flow: type=link with the user's token; back to this page afterwards).
 */
function ConnectedAccounts({ user, config }: SectionProps) {
  const { useMessages, useAuth, ProviderButtons, providerName } = useSectionKit();
  const auth = useAuth();
  const m = useMessages();
  const linked = new Set(user.oauthProviders.map((p) => p.id));
  const available = (config?.oauthProviders ?? []).map((p) => p.id).filter((id) => !linked.has(id));
  return (
    <div className="authmw-stack" data-testid="connected-accounts">
      {user.oauthProviders.length === 0 ? (
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
      )}
      {available.length > 0 && (
        <ProviderButtons
          ids={available}
          label={m.connectAnotherAccount}
          text={m.connectProvider}
          testId={(id) => `connect-${id}`}
          action={(id) => auth.oauth.link(id)}
        />
      )}
    </div>
  );
}

export default ConnectedAccounts;
