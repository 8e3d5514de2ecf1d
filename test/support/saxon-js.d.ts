/** The part of SaxonJS (npm `saxon-js`, which ships no types) the Schematron checks use. */
declare module 'saxon-js' {
  interface TransformOptions {
    stylesheetInternal?: unknown;
    stylesheetFileName?: string;
    sourceText?: string;
    sourceFileName?: string;
    /** By EQName (`Q{}name`). */
    stylesheetParams?: Record<string, string>;
    destination?: 'serialized' | 'raw' | 'document';
  }
  interface TransformResult {
    principalResult: string | null;
  }
  const SaxonJS: {
    transform(options: TransformOptions, mode: 'async'): Promise<TransformResult>;
    getResource(options: { file?: string; text?: string; type: 'json' | 'xml' | 'text' }): Promise<unknown>;
  };
  export default SaxonJS;
}
