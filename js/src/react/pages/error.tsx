import { Link, useSearchParams } from "react-router";
import { useAuth } from "../hooks";
import { useMessages } from "../messages";
import { AuthPage } from "./layout";

/** {handler}/error: shows `errorCode` / `message` from the query, as the service's redirects send them. */
export function HandlerError() {
  const [params] = useSearchParams();
  const { urls } = useAuth();
  const m = useMessages();
  const code = params.get("errorCode");
  const message = params.get("message");
  return (
    <AuthPage title={m.errorTitle}>
      <p role="alert" className="authmw-error">
        {message ?? m.unexpectedError}
      </p>
      {code && (
        <p className="authmw-hint">
          {m.errorCode} <code>{code}</code>
        </p>
      )}
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
