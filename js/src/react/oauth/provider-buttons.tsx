import { useEffect, useState, type ReactNode } from "react";
import { describeError, useMessages } from "../messages.js";
import { providerName } from "./providers.js";

/** The same spacing as the other sign-in methods of the page. */
const groupStyle = { display: "grid", gap: "0.5rem" } as const;

export interface ProviderButtonsProps {
  ids: string[];
  /** Accessible name of the group. */
  label: string;
  /** The button text for a provider's display name ("Continue with GitHub"). */
  text(name: string): string;
  testId(id: string): string;
  /** Leaves the page (to the provider) or throws; a failure is shown under the buttons. */
  action(id: string): Promise<void>;
}

/**
 * The providers' logos (the inside of a 24×24 SVG, by provider id): empty at first, then all of
 * them once their module has loaded (a chunk of its own, after the page); a logo's place keeps its size meanwhile.
 */
export function useProviderLogos(): Record<string, ReactNode> {
  const [logos, setLogos] = useState<Record<string, ReactNode>>({});
  useEffect(() => {
    let live = true;
    import("./logos.js").then(
      (module) => live && setLogos(module.PROVIDER_LOGOS),
      () => {},
    );
    return () => {
      live = false;
    };
  }, []);
  return logos;
}

/**
 * Sends the browser to a provider with `action(id)`: which one is under way (`pending`; every
 * button is disabled meanwhile) and the sentence of a failure (`error`), shown under the buttons.
 */
export function useProviderAction(action: (id: string) => Promise<void>) {
  const m = useMessages();
  const [pending, setPending] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  async function run(id: string) {
    setPending(id);
    setError(null);
    try {
      await action(id);
    } catch (err) {
      setError(describeError(err, m));
      setPending(null);
    }
  }
  return { pending, error, run };
}

/** A provider's logo (an empty box of the same size until the logos have loaded). */
export function ProviderLogo({ logos, id }: { logos: Record<string, ReactNode>; id: string }) {
  return (
    <svg className="authmw-provider-logo" aria-hidden="true" width="18" height="18" viewBox="0 0 24 24">
      {logos[id]}
    </svg>
  );
}

/** One button per provider; while one sends the browser away, all are disabled. */
export function ProviderButtons({ ids, label, text, testId, action }: ProviderButtonsProps) {
  const m = useMessages();
  const { pending, error, run } = useProviderAction(action);
  const logos = useProviderLogos();
  return (
    <div className="authmw-oauth" role="group" aria-label={label} style={groupStyle}>
      {ids.map((id) => (
        <button
          key={id}
          type="button"
          className="authmw-button authmw-oauth-button"
          data-provider={id}
          data-testid={testId(id)}
          disabled={pending !== null}
          aria-busy={pending === id}
          onClick={() => void run(id)}
        >
          <ProviderLogo logos={logos} id={id} />
          {pending === id ? m.redirectingTo(providerName(id)) : text(providerName(id))}
        </button>
      ))}
      {error && (
        <p role="alert" className="authmw-error" data-testid="auth-error">
          {error}
        </p>
      )}
    </div>
  );
}
