import { useState } from "react";
import { describeError, useMessages } from "../messages";
import { providerName } from "./providers";

const iconStyle = {
  display: "inline-grid",
  placeItems: "center",
  width: "1.4rem",
  height: "1.4rem",
  borderRadius: "50%",
  border: "1px solid currentColor",
  fontSize: "0.8rem",
  fontWeight: 700,
} as const;

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

/** One button per provider; while one sends the browser away, all are disabled. */
export function ProviderButtons({ ids, label, text, testId, action }: ProviderButtonsProps) {
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

  return (
    <div className="authmw-oauth authmw-stack" role="group" aria-label={label}>
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
          <span className="authmw-oauth-icon" aria-hidden="true" style={iconStyle}>
            {providerName(id).charAt(0)}
          </span>{" "}
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
