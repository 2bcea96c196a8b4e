import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { BrowserRouter, Route, Routes } from "react-router";
import { AuthHandler, AuthProvider } from "@authmw/react";
import { readConfig } from "./config";
import { CustomSignIn } from "./custom-sign-in";
import { CustomSignUp } from "./custom-sign-up";
import { Guest } from "./guest";
import { Home } from "./home";
import { Protected } from "./protected";
import { loadLanguage, LocaleContext } from "./language";

function NotFound() {
  return (
    <main style={{ maxWidth: "40rem", margin: "2rem auto" }}>
      <h1>Page not found</h1>
      <a href="/">Home</a>
    </main>
  );
}

// `?redirect=router` on the page the app is opened with: the provider's redirectMethod "router"
// (react-router navigations) instead of the default "window" (page loads).
const redirectMethod = new URLSearchParams(window.location.search).get("redirect") === "router" ? "router" : "window";

// Opened under /app/, the same app runs as one mounted at a base path: react-router's basename
// "/app", and the package's URLs are the browser's, so they include it (handlerPath "/app/handler").
const basename = /^\/app(\/|$)/.test(window.location.pathname) ? "/app" : undefined;

const root = createRoot(document.getElementById("root")!);
const config = readConfig();
if (typeof config === "string") {
  root.render(<p role="alert">{config}</p>);
} else {
  const locale = await loadLanguage();
  root.render(
    <StrictMode>
      <LocaleContext.Provider value={locale}>
        <BrowserRouter basename={basename}>
          <AuthProvider
            projectId={config.projectId}
            publishableClientKey={config.publishableClientKey}
            baseUrl={config.apiUrl}
            handlerPath={(basename ?? "") + config.handlerPath}
            allowAnonymous={config.allowAnonymous}
            redirectMethod={redirectMethod}
          >
            <Routes>
              <Route path="/" element={<Home />} />
              <Route path="/protected" element={<Protected />} />
              <Route path="/custom-sign-in" element={<CustomSignIn />} />
              <Route path="/custom-sign-up" element={<CustomSignUp />} />
              <Route path="/guest" element={<Guest allowAnonymous={config.allowAnonymous} />} />
              <Route path={`${config.handlerPath.replace(/\/+$/, "")}/*`} element={<AuthHandler messages={locale?.messages} />} />
              <Route path="*" element={<NotFound />} />
            </Routes>
          </AuthProvider>
        </BrowserRouter>
      </LocaleContext.Provider>
    </StrictMode>,
  );
}
