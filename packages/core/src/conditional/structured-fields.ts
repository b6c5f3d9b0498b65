/**
 * A parser for Structured Field Values (RFC 9651, which obsoletes RFC 8941), following its parsing
 * algorithms (§4.2) step by step, including the Date and Display String types, so that any valid
 * field parses whatever members it carries. Checked against the HTTP WG's test suite.
 *
 * `structured-headers` (npm) was considered: its Date parser rejects a date followed by anything
 * (another member, a parameter), so valid dictionaries would fail; this parser has no such gap.
 */

export type BareItem =
  | { readonly type: 'integer' | 'decimal'; readonly value: number }
  | { readonly type: 'string' | 'token' | 'display-string'; readonly value: string }
  | { readonly type: 'byte-sequence'; readonly value: Uint8Array }
  | { readonly type: 'boolean'; readonly value: boolean }
  /** Seconds since the epoch. */
  | { readonly type: 'date'; readonly value: number };

/** Ordered; a repeated key keeps its first position and takes its last value (§4.2.3.2). */
export type Parameters = ReadonlyMap<string, BareItem>;

export interface Item {
  readonly kind: 'item';
  readonly value: BareItem;
  readonly parameters: Parameters;
}

export interface InnerList {
  readonly kind: 'inner-list';
  readonly items: readonly Item[];
  readonly parameters: Parameters;
}

export type Member = Item | InnerList;
export type Dictionary = ReadonlyMap<string, Member>;

class SyntaxFailure extends Error {}

function fail(): never {
  throw new SyntaxFailure();
}

// Character classes, each tested on one character (or '' at the end of the input).
const DIGIT = /[0-9]/;
const KEY_START = /[a-z*]/;
const KEY_CHAR = /[a-z0-9_\-.*]/;
const TOKEN_START = /[A-Za-z*]/;
// tchar / ":" / "/"
const TOKEN_CHAR = /[!#$%&'*+\-.^_`|~0-9A-Za-z:/]/;
const BASE64_CHAR = /[A-Za-z0-9+/=]/;
// Tested on the two characters after `%` (fewer at the end of the input).
const LOWER_HEX_PAIR = /[0-9a-f]{2}/;

class Parser {
  #pos = 0;
  constructor(readonly input: string) {}

  get done(): boolean {
    return this.#pos >= this.input.length;
  }

  peek(): string {
    return this.input.charAt(this.#pos);
  }

  take(): string {
    return this.input.charAt(this.#pos++);
  }

  /** Consumes `char` if it is next. */
  eat(char: string): boolean {
    if (this.peek() !== char) return false;
    this.#pos++;
    return true;
  }

  skipSpaces(): void {
    while (this.peek() === ' ') this.#pos++;
  }

  skipOws(): void {
    while (this.peek() === ' ' || this.peek() === '\t') this.#pos++;
  }

  /** §4.2.1-2: members, each followed by the end or a comma and more (no trailing comma). */
  members<T>(parseMember: () => T): T[] {
    const members: T[] = [];
    while (!this.done) {
      members.push(parseMember());
      this.skipOws();
      if (this.done) break;
      if (!this.eat(',')) fail();
      this.skipOws();
      if (this.done) fail();
    }
    return members;
  }

  itemOrInnerList(): Member {
    return this.peek() === '(' ? this.innerList() : this.item();
  }

  /** §4.2.1.2 */
  innerList(): InnerList {
    this.take();
    const items: Item[] = [];
    this.skipSpaces();
    while (!this.eat(')')) {
      // At the end of the input item() fails: the list is unterminated.
      items.push(this.item());
      if (this.peek() !== ' ' && this.peek() !== ')') fail();
      this.skipSpaces();
    }
    return { kind: 'inner-list', items, parameters: this.parameters() };
  }

  /** §4.2.3 */
  item(): Item {
    const value = this.bareItem();
    return { kind: 'item', value, parameters: this.parameters() };
  }

  /** §4.2.3.1 */
  bareItem(): BareItem {
    const char = this.peek();
    if (char === '-' || DIGIT.test(char)) return this.number();
    if (char === '"') return this.string();
    if (TOKEN_START.test(char)) return this.token();
    if (char === ':') return this.byteSequence();
    if (char === '?') return this.boolean();
    if (char === '@') return this.date();
    if (char === '%') return this.displayString();
    return fail();
  }

  /** §4.2.3.2 */
  parameters(): Parameters {
    const parameters = new Map<string, BareItem>();
    while (this.eat(';')) {
      this.skipSpaces();
      const key = this.key();
      parameters.set(key, this.eat('=') ? this.bareItem() : { type: 'boolean', value: true });
    }
    return parameters;
  }

  /** §4.2.3.3 */
  key(): string {
    if (!KEY_START.test(this.peek())) fail();
    let key = this.take();
    while (KEY_CHAR.test(this.peek())) key += this.take();
    return key;
  }

  /** §4.2.4: at most 15 integer digits; a decimal has at most 12 before and 1-3 after the point. */
  number(): BareItem {
    const negative = this.eat('-');
    if (!DIGIT.test(this.peek())) fail();
    let digits = '';
    let decimal = false;
    // peek() gives '' at the end of the input, which is neither a digit nor a point.
    for (let char = this.peek(); DIGIT.test(char) || (char === '.' && !decimal); char = this.peek()) {
      if (char === '.') {
        if (digits.length > 12) fail();
        decimal = true;
      }
      digits += this.take();
      if (digits.length > (decimal ? 16 : 15)) fail();
    }
    const fraction = digits.length - digits.indexOf('.') - 1;
    if (decimal && (fraction < 1 || fraction > 3)) fail();
    // 0 - 0 is +0: numbers in structured fields have no negative zero.
    const value = negative ? 0 - Number(digits) : Number(digits);
    return { type: decimal ? 'decimal' : 'integer', value };
  }

  /** §4.2.5: printable ASCII; a backslash escapes only DQUOTE and backslash. */
  string(): BareItem {
    this.take();
    let value = '';
    for (let char = this.take(); char !== '"'; char = this.take()) {
      if (char === '\\') {
        const escaped = this.take();
        if (escaped !== '"' && escaped !== '\\') fail();
        value += escaped;
      } else {
        // take() gives '' at the end of the input, which is below ' ' too.
        if (char < ' ' || char > '~') fail();
        value += char;
      }
    }
    return { type: 'string', value };
  }

  /** §4.2.6 */
  token(): BareItem {
    let value = this.take();
    while (TOKEN_CHAR.test(this.peek())) value += this.take();
    return { type: 'token', value };
  }

  /**
   * §4.2.7: base64 between colons. Missing `=` padding and non-zero pad bits are accepted, as the RFC
   * recommends; `atob` (the WHATWG forgiving decoder) does exactly that once the alphabet is checked.
   */
  byteSequence(): BareItem {
    this.take();
    let base64 = '';
    // take() gives '' at the end of the input, which is no base64 character.
    for (let char = this.take(); char !== ':'; char = this.take()) {
      if (!BASE64_CHAR.test(char)) fail();
      base64 += char;
    }
    return { type: 'byte-sequence', value: decodeBase64(base64) };
  }

  /** §4.2.8 */
  boolean(): BareItem {
    this.take();
    const char = this.take();
    if (char !== '0' && char !== '1') fail();
    return { type: 'boolean', value: char === '1' };
  }

  /** §4.2.9: `@` and an integer. */
  date(): BareItem {
    this.take();
    const number = this.number();
    if (number.type !== 'integer') fail();
    return { type: 'date', value: number.value };
  }

  /** §4.2.10: `%"…"`, printable ASCII with `%xx` (lower-case hex) escapes, decoding as UTF-8. */
  displayString(): BareItem {
    this.take();
    if (!this.eat('"')) fail();
    const bytes: number[] = [];
    for (let char = this.take(); char !== '"'; char = this.take()) {
      // take() gives '' at the end of the input, which is below ' ' too.
      if (char < ' ' || char > '~') fail();
      if (char === '%') {
        const hex = this.take() + this.take();
        if (!LOWER_HEX_PAIR.test(hex)) fail();
        bytes.push(Number.parseInt(hex, 16));
      } else {
        bytes.push(char.charCodeAt(0));
      }
    }
    return { type: 'display-string', value: decodeUtf8(bytes) };
  }
}

function decodeBase64(base64: string): Uint8Array {
  try {
    return Uint8Array.from(atob(base64), (char) => char.charCodeAt(0));
  } catch {
    return fail();
  }
}

function decodeUtf8(bytes: readonly number[]): string {
  try {
    return UTF8.decode(Uint8Array.from(bytes));
  } catch {
    return fail();
  }
}

// UTF-8 is the default encoding; a byte order mark is content, not a signature.
const UTF8 = new TextDecoder(undefined, { fatal: true, ignoreBOM: true });

/**
 * §4.2: leading and trailing spaces are discarded. The field must be ASCII: every character class
 * above is, so a non-ASCII character fails wherever it stands.
 */
function parseField<T>(value: string, parse: (parser: Parser) => T): T | undefined {
  const parser = new Parser(value);
  try {
    parser.skipSpaces();
    const result = parse(parser);
    parser.skipSpaces();
    return parser.done ? result : undefined;
  } catch (error) {
    if (error instanceof SyntaxFailure) return undefined;
    throw error;
  }
}

/** Parses a Dictionary field (§4.2.2); undefined when it is not one. An empty value is empty. */
export function parseDictionary(value: string): Dictionary | undefined {
  return parseField(value, (parser) => {
    const dictionary = new Map<string, Member>();
    parser.members(() => {
      const key = parser.key();
      const member: Member = parser.eat('=')
        ? parser.itemOrInnerList()
        : { kind: 'item', value: { type: 'boolean', value: true }, parameters: parser.parameters() };
      dictionary.set(key, member);
    });
    return dictionary;
  });
}

/** Parses a List field (§4.2.1); undefined when it is not one. */
export function parseList(value: string): readonly Member[] | undefined {
  return parseField(value, (parser) => parser.members(() => parser.itemOrInnerList()));
}

/** Parses an Item field (§4.2.3); undefined when it is not one. */
export function parseItem(value: string): Item | undefined {
  return parseField(value, (parser) => parser.item());
}
