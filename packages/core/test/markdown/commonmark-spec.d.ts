declare module 'commonmark-spec' {
  export interface SpecExample {
    readonly markdown: string;
    readonly html: string;
    readonly section: string;
    readonly number: number;
  }
  export const tests: readonly SpecExample[];
  export const text: string;
}
