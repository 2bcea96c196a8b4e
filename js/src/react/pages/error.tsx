import { Link, useSearchParams } from "react-router";
import { useAuth } from "../hooks";
import { AuthPage } from "./layout";

/** {handler}/error: shows `errorCode` / `message` from the query, as the service's redirects send them. */
export function HandlerError() {
  const [params] = useSearchParams();
  const { urls } = useAuth();
  const code = params.get("errorCode");
  const message = params.get("message");
  return (
    <AuthPage title="Something went wrong">
      <p role="alert">{message ?? "An unexpected error occurred."}</p>
      {code && (
        <p>
          Error code: <code>{code}</code>
        </p>
      )}
      <p>
        <Link to={urls.home}>Go home</Link>
      </p>
    </AuthPage>
  );
}

/** Any other path under the handler. */
export function HandlerNotFound() {
  const { urls } = useAuth();
  return (
    <AuthPage title="Page not found">
      <p>There is no such page here.</p>
      <p>
        <Link to={urls.home}>Go home</Link> · <Link to={urls.signIn}>Sign in</Link>
      </p>
    </AuthPage>
  );
}
