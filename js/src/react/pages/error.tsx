import { useEffect, useState } from "react";
import { Link, useSearchParams } from "react-router";
import { useAuth } from "../hooks";
import { describeUntrustedError, useMessages } from "../messages";
import { AuthPage } from "./layout";

/**
 * {handler}/error, where the service's redirects send errors (`errorCode`, `message`, `details`).
 * Anyone can write such a URL, so the page shows only its own sentence for a catalogue code
 * (describeUntrustedError), never the URL's text; the catalogue loads with the page's first code.
 */
export function HandlerError() {
  const [params] = useSearchParams();
  const { urls } = useAuth();
  const m = useMessages();
  const code = params.get("errorCode");
  const [text, setText] = useState<string | null>(code ? null : m.unexpectedError);
  useEffect(() => {
    if (!code) {
      setText(m.unexpectedError);
      return;
    }
    let live = true;
    import("../../errors").then(
      ({ knownErrorClass }) => {
        const cls = knownErrorClass(code);
        if (live) setText(cls ? describeUntrustedError(new cls(), m) : m.unexpectedError);
      },
      () => live && setText(m.unexpectedError),
    );
    return () => {
      live = false;
    };
  }, [code, m]);
  return (
    <AuthPage title={m.errorTitle}>
      <p role="alert" className="authmw-error" data-testid="handler-error">
        {text ?? ""}
      </p>
      <Link className="authmw-button authmw-primary" to={urls.home}>
        {m.goHome}
      </Link>
    </AuthPage>
  );
}

/** Any other path under the handler. */
export function HandlerNotFound() {
  const { urls } = useAuth();
  const m = useMessages();
  return (
    <AuthPage title={m.notFoundTitle}>
      <p>{m.notFound}</p>
      <div className="authmw-actions">
        <Link className="authmw-button authmw-primary" to={urls.home}>
          {m.goHome}
        </Link>
        <Link className="authmw-button" to={urls.signIn}>
          {m.signIn}
        </Link>
      </div>
    </AuthPage>
  );
}
