/** The filter language of extensions §3, parsed. */

export const FILTER_OPS = [
  'eq',
  'ne',
  'lt',
  'lte',
  'gt',
  'gte',
  'in',
  'contains',
  'exists',
  'prefix',
] as const;
export type FilterOp = (typeof FILTER_OPS)[number];

export const FIXED_FIELDS = ['filename', 'size_bytes', 'created_date', 'updated_date', 'revision'] as const;
export type FixedField = (typeof FIXED_FIELDS)[number];
export const DATE_FIELDS = ['created_date', 'updated_date'] as const;
export type DateField = (typeof DATE_FIELDS)[number];

export const JSON_ROOTS = ['metadata', 'frontmatter'] as const;
export type JsonRoot = (typeof JSON_ROOTS)[number];

export type FilterField =
  | { readonly kind: 'fixed'; readonly name: FixedField }
  /** A path of object keys below the file's metadata or front matter (never into arrays). */
  | { readonly kind: 'json'; readonly root: JsonRoot; readonly keys: readonly string[] };

export type JsonValue =
  | null
  | boolean
  | number
  | string
  | readonly JsonValue[]
  | { readonly [key: string]: JsonValue };

export interface FilterCondition {
  readonly kind: 'condition';
  readonly field: FilterField;
  readonly op: FilterOp;
  readonly value: JsonValue;
  /**
   * On a date field with `eq`…`gte` (one instant) or `in` (one per element): the value's instants in
   * epoch milliseconds (fractions kept), else null.
   */
  readonly instants: readonly number[] | null;
}

export type Filter =
  | FilterCondition
  | { readonly kind: 'and'; readonly filters: readonly Filter[] }
  | { readonly kind: 'or'; readonly filters: readonly Filter[] }
  | { readonly kind: 'not'; readonly filter: Filter };

/** The file as filters see it (the domain's File, times in epoch milliseconds). */
export interface FilterableFile {
  readonly filename: string;
  readonly sizeBytes: number;
  readonly createdAt: number;
  readonly updatedAt: number;
  readonly revision: number;
  readonly metadata: { readonly [key: string]: unknown } | null;
  readonly frontmatter: { readonly [key: string]: unknown } | null;
}

export const isDateField = (field: FilterField): field is { kind: 'fixed'; name: DateField } =>
  field.kind === 'fixed' && (DATE_FIELDS as readonly string[]).includes(field.name);
