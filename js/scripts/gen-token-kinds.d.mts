export const TOKEN_KINDS_PATH: string;
export const TOKEN_KINDS_OUTPUT_PATH: string;
export interface TokenKindsTable {
  legacy_issuer: string;
  allow_anonymous_header: string;
  kinds: Record<string, { audience_suffix: string; issuer_path: string }>;
}
export function readTokenKinds(path?: string): TokenKindsTable;
export function generateTokenKinds(table: TokenKindsTable): string;
