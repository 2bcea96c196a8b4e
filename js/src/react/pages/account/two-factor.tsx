import { useId, useState, type FormEvent } from "react";
import type { TotpSetup } from "../../../totp.js";
import { useSectionKit } from "./kit.js";
import type { SectionProps } from "./section.js";

/**
 * TOTP on and off. Turning it on shows the otpauth:// URI as a QR code and the secret as text,
 * and saves the secret only once the person types a code their app made from it.
 */
function TwoFactor({ user }: SectionProps) {
  const { useAuth, useMessages, QrCode, FormError, formValue, Status, SubmitButton, useSubmit, TotpCodeField } = useSectionKit();
  const auth = useAuth();
  const m = useMessages();
  const [setup, setSetup] = useState<TotpSetup | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const start = useSubmit();
  const confirm = useSubmit();
  const off = useSubmit();
  const secretId = useId();

  async function begin() {
    setDone(null);
    const outcome = await start.run(() => auth.createTotpSetup());
    if (outcome.ok) setSetup(outcome.value);
  }

  async function onConfirm(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    if (!setup || !confirm.validate(form)) return;
    const outcome = await confirm.run(() => auth.enableTotp(setup, formValue(form, "code")));
    if (outcome.ok) {
      setSetup(null);
      setDone(m.twoFactorEnabled);
    } else {
      confirm.showOnField(form, "code", outcome.error);
    }
  }

  async function turnOff() {
    setDone(null);
    const outcome = await off.run(() => auth.disableTotp());
    if (outcome.ok) setDone(m.twoFactorDisabled);
  }

  if (!setup) {
    const on = user.isMultiFactorRequired;
    const action = on ? off : start;
    return (
      <div className="authmw-stack">
        <p data-testid="two-factor-status" data-enabled={on}>
          {on ? m.twoFactorOn : m.twoFactorOff}
        </p>
        <FormError message={action.error} />
        <Status message={done} testId="two-factor-done" />
        <div className="authmw-actions">
          <button
            type="button"
            className={on ? "authmw-button authmw-danger" : "authmw-button authmw-primary"}
            onClick={on ? turnOff : begin}
            disabled={action.pending}
            data-testid={on ? "disable-totp" : "enable-totp"}
          >
            {action.pending ? (on ? m.saving : m.loading) : on ? m.disableTwoFactor : m.enableTwoFactor}
          </button>
        </div>
      </div>
    );
  }

  return (
    <form onSubmit={onConfirm} className="authmw-form" noValidate aria-busy={confirm.pending} data-testid="totp-setup">
      <p>{m.twoFactorScan}</p>
      <QrCode text={setup.uri} label={m.twoFactorQrLabel} testId="totp-qr" />
      <div className="authmw-field">
        <label htmlFor={secretId}>{m.twoFactorSecretLabel}</label>
        <input
          id={secretId}
          readOnly
          value={setup.secret.replace(/(.{4})(?=.)/g, "$1 ")}
          spellCheck={false}
          style={{ fontFamily: "ui-monospace, SFMono-Regular, Menlo, Consolas, monospace" }}
          onFocus={(event) => event.currentTarget.select()}
          data-testid="totp-secret"
        />
      </div>
      <TotpCodeField label={m.twoFactorCodeLabel} name="code" submit={confirm} />
      <FormError id={confirm.formErrorId} message={confirm.error} />
      <div className="authmw-actions">
        <SubmitButton pending={confirm.pending} label={m.twoFactorConfirm} pendingLabel={m.twoFactorConfirming} testId="confirm-totp" />
        <button type="button" className="authmw-button" onClick={() => setSetup(null)} disabled={confirm.pending}>
          {m.cancel}
        </button>
      </div>
    </form>
  );
}

export default TwoFactor;
