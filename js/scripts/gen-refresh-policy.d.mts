export const REFRESH_POLICY_PATH: string;
export const REFRESH_POLICY_OUTPUT_PATH: string;
export const SHORT_LIVED_WARNING_OUTPUT_PATH: string;
export interface RefreshPolicyTable {
  required_validity_ms: number;
  max_min_validity_ms: number;
  endpoints: {
    server: { path: string; refresh_token_header: string };
    client: { path: string; grant_type: string };
  };
  retry_network_failure: { session: boolean; request: boolean };
  signs_out: string[];
  short_lived_warning: string;
}
export function readRefreshPolicy(path?: string): RefreshPolicyTable;
/** The text of refresh-policy.gen.ts and of short-lived-warning.gen.ts. */
export function generateRefreshPolicy(table: RefreshPolicyTable): [policy: string, shortLivedWarning: string];
