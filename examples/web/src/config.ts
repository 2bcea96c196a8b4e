/** Injected by the example server in place of <!--AUTHMW_CONFIG--> in index.html. */
export interface ExampleConfig {
  projectId: string;
  publishableClientKey: string | null;
  apiUrl: string;
  handlerPath: string;
  /** Show API 2.8's anonymous users as signed in (AuthProvider's allowAnonymous); default false. */
  allowAnonymous: boolean;
}

declare global {
  interface Window {
    __AUTHMW_CONFIG__?: Partial<ExampleConfig>;
  }
}

export function readConfig(): ExampleConfig | string {
  const raw = window.__AUTHMW_CONFIG__;
  if (!raw) return "window.__AUTHMW_CONFIG__ is missing: serve index.html through the example server, which injects it.";
  if (!raw.projectId || !raw.apiUrl) return "window.__AUTHMW_CONFIG__ needs projectId and apiUrl.";
  return {
    projectId: raw.projectId,
    publishableClientKey: raw.publishableClientKey ?? null,
    apiUrl: raw.apiUrl,
    handlerPath: raw.handlerPath || "/handler",
    allowAnonymous: raw.allowAnonymous === true,
  };
}
