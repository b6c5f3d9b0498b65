import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

// biome-ignore lint/suspicious/noExplicitAny: the document is read as plain JSON
type Json = Record<string, any>;

const DOCUMENT_ID = 'https://mdstore.invalid/openapi.json';
// ajv-formats is CommonJS: its default export is the plugin function.
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

/** The OpenAPI document's operations by operationId, and a validator of answers against it. */
export class DocumentChecker {
  private readonly ajv: Ajv2020;
  private readonly operations = new Map<string, { path: string; method: string; operation: Json }>();
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(readonly document: Json) {
    this.ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(this.ajv);
    // The whole document is one resource: every `#/components/...` reference resolves inside it.
    this.ajv.addSchema({ ...document, $id: DOCUMENT_ID });
    for (const [path, item] of Object.entries(document.paths as Json)) {
      for (const [method, operation] of Object.entries(item as Json)) {
        this.operations.set(operation.operationId, { path, method, operation });
      }
    }
  }

  get operationIds(): string[] {
    return [...this.operations.keys()];
  }

  /**
   * The problems of one answer: status not documented for the operation, body not matching the schema
   * of its media type, a required header missing or not matching its schema. Empty when it conforms.
   */
  check(operationId: string, status: number, headers: Headers, body: Buffer): string[] {
    const found = this.operations.get(operationId);
    if (!found) return [`${operationId}: not in the document`];
    const pointer = `/paths/${fragment(found.path)}/${found.method}/responses/${status}`;
    const answer = found.operation.responses[String(status)] as Json | undefined;
    if (!answer) return [`${operationId}: status ${status} is not documented`];
    const problems: string[] = [];
    for (const [name, header] of Object.entries((answer.headers ?? {}) as Json)) {
      const resolved = header.$ref ? this.resolve(header.$ref) : header;
      const value = headers.get(name);
      if (value === null) {
        if (resolved.required) problems.push(`${operationId} ${status}: header ${name} missing`);
        continue;
      }
      const typed = resolved.schema?.type === 'integer' ? Number(value) : value;
      const where = header.$ref
        ? `#${header.$ref.slice(1)}/schema`
        : `#${pointer}/headers/${fragment(name)}/schema`;
      problems.push(...this.validate(where, typed).map((p) => `${operationId} ${status} ${name}: ${p}`));
    }
    const content = answer.content as Json | undefined;
    const type = headers.get('content-type')?.split(';', 1)[0]?.trim();
    if (!content) {
      if (body.length > 0) problems.push(`${operationId} ${status}: a body where none is documented`);
      return problems;
    }
    if (found.method === 'head') return problems;
    // `*/*`: an answer in any type (an attachment, extensions §12).
    if (!type || !(content[type] ?? content['*/*'])) {
      problems.push(`${operationId} ${status}: content type ${type} is not documented`);
      return problems;
    }
    if (type === 'application/json') {
      const where = `#${pointer}/content/${fragment(type)}/schema`;
      const parsed = JSON.parse(body.toString('utf8'));
      problems.push(...this.validate(where, parsed).map((p) => `${operationId} ${status} body: ${p}`));
    }
    return problems;
  }

  private validate(where: string, value: unknown): string[] {
    let validate = this.validators.get(where);
    if (!validate) {
      validate = this.ajv.compile({ $ref: `${DOCUMENT_ID}${where}` });
      this.validators.set(where, validate);
    }
    if (validate(value)) return [];
    return (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}`);
  }

  private resolve(ref: string): Json {
    let node: Json = this.document;
    for (const part of ref.slice(2).split('/')) node = node[part.replaceAll('~1', '/').replaceAll('~0', '~')];
    return node;
  }
}

/** A JSON Pointer token, percent-encoded for a URI fragment. */
const fragment = (part: string) => encodeURIComponent(part.replaceAll('~', '~0').replaceAll('/', '~1'));
