export const CATALOGUE_PATH: string;
export const OUTPUT_PATH: string;
export interface CatalogueEntry {
  code: string;
  parent: string | null;
  status: number;
  message: string;
  details: Record<string, string>;
  abstract?: boolean;
  emitted?: boolean;
}
export interface Catalogue {
  errors: CatalogueEntry[];
}
export function className(code: string): string;
export function getterName(key: string): string;
export function generate(catalogue: Catalogue): string;
export function readCatalogue(path?: string): Catalogue;
