export const OUT: string;
export interface DocBlock {
  page: string;
  line: number;
  language: "ts" | "tsx";
  body: string;
  tested: boolean;
  file: string | null;
}
export function pages(): string[];
export function docBlocks(): DocBlock[];
export function folderOf(page: string): string;
export function writeDocBlocks(): string[];
