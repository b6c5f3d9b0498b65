import {
  checkedContent,
  checkUploadFilename,
  type ErrorCode,
  InputError,
  isMdStoreError,
  isValidUtf8,
  parseCreateProjectBody,
  parseMetadataUpdateBody,
  parseUpdateProjectBody,
  parseUploadMetadataField,
  Utf8Validator,
} from '@mdstore/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CONTROL,
  isValidProjectName,
  filenameOutcome as referenceFilenameOutcome,
  WHITE_SPACE,
} from './support/reference-rules.js';
import { isWellFormedUtf8 } from './support/utf8-reference.js';

/** The code an operation fails with, or 'OK'. */
function outcome(run: () => unknown): ErrorCode | 'OK' {
  try {
    run();
    return 'OK';
  } catch (error) {
    if (isMdStoreError(error)) return error.code;
    throw error;
  }
}

function issueTypes(run: () => unknown): string[] {
  try {
    run();
  } catch (error) {
    if (error instanceof InputError) return error.issues.map((issue) => issue.type);
    throw error;
  }
  return [];
}

/** Short strings of any characters, and strings around the 255-code-point limit. */
const nameCandidate = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.string({
    unit: fc.constantFrom(
      ' ',
      '\u00a0',
      '\u0009',
      '\u3000',
      '\u0085',
      '\uFEFF',
      'a',
      '\u{1F600}',
      '\u0000',
      '\u0080',
      '\ud800',
    ),
    maxLength: 6,
  }),
  fc
    .tuple(fc.integer({ min: 250, max: 260 }), fc.constantFrom('a', '\u00e9', '\u{1F600}', ' '))
    .map(([length, char]) => char.repeat(length)),
  fc
    .tuple(fc.integer({ min: 250, max: 260 }), fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }))
    .map(([length, char]) => `${'\u{10FFFF}'.repeat(length - 1)}${char}`),
);

const nameOutcome = (name: unknown) => outcome(() => parseCreateProjectBody({ name }));

/** Any well-formed string, astral characters included. */
const anyText = (constraints: { minLength?: number; maxLength?: number } = {}) =>
  fc.string({ unit: 'binary', ...constraints });

describe('project names', () => {
  it('accepts 255 code points and refuses 256, counting astral characters once', () => {
    const emoji = '\u{1F600}';
    expect(emoji.repeat(255).length).toBe(510);
    expect(nameOutcome(emoji.repeat(255))).toBe('OK');
    expect(nameOutcome(emoji.repeat(256))).toBe('INVALID_INPUT');
    expect(issueTypes(() => parseCreateProjectBody({ name: emoji.repeat(256) }))).toEqual([
      'string_too_long',
    ]);
    expect(nameOutcome('a'.repeat(255))).toBe('OK');
    expect(nameOutcome('a'.repeat(256))).toBe('INVALID_INPUT');
    expect(nameOutcome(`${'a'.repeat(254)}${emoji}`)).toBe('OK');
  });

  it('keeps the name exactly as given (no trimming, no normalisation)', () => {
    for (const name of [' padded ', 'e\u0301', '\u00e9', 'MiXeD', '\u{1F600}x']) {
      expect(parseCreateProjectBody({ name }).name).toBe(name);
    }
  });

  it('follows the length, control and white-space rules for any string', () => {
    fc.assert(
      fc.property(nameCandidate, (name) => {
        expect(nameOutcome(name)).toBe(isValidProjectName(name) ? 'OK' : 'INVALID_INPUT');
      }),
      { numRuns: 500 },
    );
  });

  it('refuses names made only of white space, each White_Space character alone and mixed', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...WHITE_SPACE), { minLength: 1, maxLength: 20 }), (chars) => {
        expect(nameOutcome(chars.join(''))).toBe('INVALID_INPUT');
      }),
    );
  });

  // ECMAScript's `\s` differs from Unicode's White_Space exactly here: it lacks U+0085 (NEXT LINE) and
  // includes U+FEFF (ZERO WIDTH NO-BREAK SPACE).
  it('judges white space by the Unicode White_Space property (U+0085 is, U+FEFF is not)', () => {
    expect(nameOutcome('\u0085')).toBe('INVALID_INPUT');
    expect(nameOutcome('\u0085\u00a0')).toBe('INVALID_INPUT');
    expect(nameOutcome('\uFEFF')).toBe('OK');
    expect(nameOutcome(' \uFEFF ')).toBe('OK');
  });

  it('accepts names that merely contain white space, and non-White_Space invisibles', () => {
    for (const name of [' a ', '\u3000x', 'a\u00a0b', '\u200b', '\u180e', '\u2060']) {
      expect(nameOutcome(name)).toBe('OK');
    }
  });

  it('refuses every control character U+0000-U+001F and U+007F, anywhere in the name', () => {
    fc.assert(
      fc.property(
        anyText({ maxLength: 20 }),
        fc.constantFrom(...CONTROL),
        anyText({ maxLength: 20 }),
        (a, c, b) => {
          expect(nameOutcome(`x${a}${c}${b}`)).toBe('INVALID_INPUT');
        },
      ),
    );
  });

  it('accepts C1 characters U+0080-U+009F inside a name: the spec forbids only the two listed ranges', () => {
    for (let codePoint = 0x80; codePoint <= 0x9f; codePoint++) {
      expect(nameOutcome(`a${String.fromCodePoint(codePoint)}b`)).toBe('OK');
    }
  });

  it('refuses lone surrogates, which have no UTF-8 form', () => {
    for (const name of ['\ud800', 'a\udc00', '\ud83d', `x\ude00y`, '\udfff\ud800']) {
      expect(nameOutcome(name)).toBe('INVALID_INPUT');
    }
    expect(nameOutcome('\ud83d\ude00')).toBe('OK');
  });

  it('refuses empty, null, and non-string names with 422 and a missing name with 400', () => {
    for (const name of ['', null, 42, true, [], {}]) expect(nameOutcome(name)).toBe('INVALID_INPUT');
    expect(outcome(() => parseCreateProjectBody({}))).toBe('MALFORMED_INPUT');
    expect(outcome(() => parseCreateProjectBody({ description: 'x' }))).toBe('MALFORMED_INPUT');
    for (const body of [null, [], 'name', 3])
      expect(outcome(() => parseCreateProjectBody(body))).toBe('INVALID_INPUT');
  });

  it('applies the same name rules on update, where a body without name and description is 400', () => {
    expect(outcome(() => parseUpdateProjectBody({}))).toBe('MALFORMED_INPUT');
    expect(outcome(() => parseUpdateProjectBody({ other: 1 }))).toBe('MALFORMED_INPUT');
    expect(outcome(() => parseUpdateProjectBody({ name: null }))).toBe('INVALID_INPUT');
    expect(outcome(() => parseUpdateProjectBody({ name: '  ' }))).toBe('INVALID_INPUT');
    expect(parseUpdateProjectBody({ description: null })).toEqual({ description: null });
    expect(parseUpdateProjectBody({ name: 'n' })).toEqual({ name: 'n' });
    expect(parseCreateProjectBody({ name: 'n' })).toEqual({ name: 'n', description: null, settings: {} });
  });
});

describe('filenames', () => {
  const filenameOutcome = (filename: string) => outcome(() => checkUploadFilename(filename));

  it('counts the 255-byte limit in UTF-8 bytes', () => {
    expect(filenameOutcome(`${'a'.repeat(252)}.md`)).toBe('OK');
    expect(filenameOutcome(`${'a'.repeat(253)}.md`)).toBe('MALFORMED_INPUT');
    // 126 two-byte characters + '.mdx' = 256 bytes but only 130 code points.
    expect(filenameOutcome(`${'\u00e9'.repeat(125)}a.mdx`)).toBe('OK');
    expect(filenameOutcome(`${'\u00e9'.repeat(126)}.mdx`)).toBe('MALFORMED_INPUT');
    // 62 four-byte emoji = 248 bytes.
    expect(filenameOutcome(`${'\u{1F600}'.repeat(62)}abcd.md`)).toBe('OK');
    expect(filenameOutcome(`${'\u{1F600}'.repeat(62)}abcde.md`)).toBe('MALFORMED_INPUT');
  });

  it('matches the extension case-insensitively', () => {
    for (const filename of [
      'a.md',
      'a.MD',
      'a.Md',
      'a.mdx',
      'a.Mdx',
      'a.MDX',
      'a.txt.md',
      '..md',
      'a b.md',
    ]) {
      expect(filenameOutcome(filename)).toBe('OK');
    }
  });

  it('answers UNSUPPORTED_EXTENSION for other extensions or none', () => {
    for (const filename of ['a.txt', 'a', 'a.', 'a.md.txt', 'a.markdown', 'md', 'a.m d', 'a.mdxx']) {
      expect(filenameOutcome(filename)).toBe('UNSUPPORTED_EXTENSION');
    }
  });

  it('answers MALFORMED_INPUT for an empty name, an extension alone, separators and controls', () => {
    for (const filename of ['', '.md', '.MDX', 'a\\b.md', '/.md', 'a\u0000.md', 'a\n.md', 'a\u007f.md']) {
      expect(filenameOutcome(filename)).toBe('MALFORMED_INPUT');
    }
    expect(filenameOutcome('a\ud800.md')).toBe('MALFORMED_INPUT');
    // The character rules come before the extension rule.
    expect(filenameOutcome('a\\b.txt')).toBe('MALFORMED_INPUT');
  });

  it('accepts folders (extensions §1) and refuses each breach of their rules with 400', () => {
    for (const filename of [
      'a/b.md',
      'guides/setup.md',
      'a/b/c/d.MDX',
      'a.txt/b.md',
      '.hidden/a.md',
      'x/..md',
    ])
      expect(filenameOutcome(filename), filename).toBe('OK');
    for (const filename of [
      '/a.md',
      'a.md/',
      'a//b.md',
      './a.md',
      'a/../b.md',
      'a/./b.md',
      '../a.md',
      'a.md/b.md',
      'A.MDX/b.md',
      'x/a.Md/b.md',
      'a/.md',
      `${'f'.repeat(256)}/a.md`,
      `f/${'a'.repeat(253)}.md`,
    ]) {
      expect(filenameOutcome(filename), filename).toBe('MALFORMED_INPUT');
    }
    // The extension is the last segment's: a dot in a folder does not make one.
    expect(filenameOutcome('a.md.d/b')).toBe('UNSUPPORTED_EXTENSION');
    expect(filenameOutcome('docs.v2/readme')).toBe('UNSUPPORTED_EXTENSION');
  });

  it('counts 255 bytes per segment and 1024 for the whole name', () => {
    const segment = 'a'.repeat(255);
    const name = `${'b'.repeat(252)}.md`;
    const deep = (n: number) => `${segment}/${segment}/${segment}/${'d'.repeat(n)}/e.md`;
    expect(new TextEncoder().encode(deep(251)).byteLength).toBe(1024);
    expect(filenameOutcome(deep(251))).toBe('OK');
    expect(filenameOutcome(deep(252))).toBe('MALFORMED_INPUT');
    expect(filenameOutcome(`${segment}/${name}`)).toBe('OK');
  });

  it('classifies any name by the rules of the product decisions', () => {
    const stem = fc.oneof(
      anyText({ maxLength: 80 }),
      fc.array(fc.constantFrom('a', '/', '.', '.md', 'é'), { maxLength: 12 }).map((parts) => parts.join('')),
    );
    const extension = fc.constantFrom('.md', '.MD', '.mdx', '.mDx', '.txt', '', '.', '.m');
    fc.assert(
      fc.property(stem, extension, (base, ext) => {
        const filename = `${base}${ext}`;
        const expected = referenceFilenameOutcome(filename);
        expect(filenameOutcome(filename)).toBe(expected);
      }),
      { numRuns: 500 },
    );
  });
});

describe('metadata', () => {
  const updateOutcome = (metadata: unknown) => outcome(() => parseMetadataUpdateBody({ metadata }));
  const uploadOutcome = (field: string) => outcome(() => parseUploadMetadataField(field));
  /** `{"a":"xxx…"}` is 8 bytes plus the string's UTF-8 length. */
  const ofSerialisedBytes = (bytes: number, filler = 'x') => ({
    a: filler.repeat((bytes - 8) / new TextEncoder().encode(filler).byteLength),
  });
  const nested = (levels: number, wrap: (inner: unknown) => unknown): unknown => {
    let value: unknown = {};
    for (let level = 1; level < levels; level++) value = wrap(value);
    return value;
  };

  it('accepts exactly 64 KiB of serialised JSON and refuses one byte more', () => {
    expect(JSON.stringify(ofSerialisedBytes(65536)).length).toBe(65536);
    expect(updateOutcome(ofSerialisedBytes(65536))).toBe('OK');
    expect(updateOutcome(ofSerialisedBytes(65537))).toBe('INVALID_INPUT');
    expect(uploadOutcome(JSON.stringify(ofSerialisedBytes(65536)))).toBe('OK');
    expect(uploadOutcome(JSON.stringify(ofSerialisedBytes(65537)))).toBe('MALFORMED_INPUT');
  });

  it('measures the size in UTF-8 bytes, not characters', () => {
    // 'é' is two bytes: 32764 of them are 65528 bytes (+8 = 65536) but only 32772 characters.
    expect(updateOutcome(ofSerialisedBytes(65536, '\u00e9'))).toBe('OK');
    expect(updateOutcome(ofSerialisedBytes(65538, '\u00e9'))).toBe('INVALID_INPUT');
  });

  it('accepts 32 levels of nesting and refuses 33, arrays counting as levels', () => {
    const inObject = (inner: unknown) => ({ k: inner });
    const inArray = (inner: unknown) => ({ k: [inner] });
    expect(updateOutcome(nested(32, inObject))).toBe('OK');
    expect(updateOutcome(nested(33, inObject))).toBe('INVALID_INPUT');
    // Each wrap adds two levels (object and array): 1 + 2*15 = 31, + a final object = 32.
    expect(updateOutcome({ k: nested(31, (inner) => [inner]) })).toBe('OK');
    expect(updateOutcome({ k: nested(32, (inner) => [inner]) })).toBe('INVALID_INPUT');
    expect(updateOutcome(nested(16, inArray))).toBe('OK');
    expect(updateOutcome(nested(17, inArray))).toBe('INVALID_INPUT');
    // A scalar inside the 32nd object is not a level of its own.
    const withScalar = nested(32, inObject) as Record<string, unknown>;
    let innermost = withScalar;
    while (innermost.k !== undefined) innermost = innermost.k as Record<string, unknown>;
    innermost.leaf = 'scalar';
    expect(updateOutcome(withScalar)).toBe('OK');
    expect(uploadOutcome(JSON.stringify(nested(33, inObject)))).toBe('MALFORMED_INPUT');
  });

  it('agrees with a direct depth count for random JSON values', () => {
    const depth = (value: unknown): number =>
      typeof value === 'object' && value !== null ? 1 + Math.max(0, ...Object.values(value).map(depth)) : 0;
    fc.assert(
      fc.property(
        fc.dictionary(fc.string(), fc.jsonValue({ depthSize: 'large', maxDepth: 40 })),
        (metadata) => {
          const tooBig = new TextEncoder().encode(JSON.stringify(metadata)).byteLength > 65536;
          const expected = depth(metadata) > 32 || tooBig ? 'INVALID_INPUT' : 'OK';
          expect(updateOutcome(metadata)).toBe(expected);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('refuses non-objects: 422 on update, 400 on upload', () => {
    for (const value of [[], [1], 'x', 1, true]) {
      expect(updateOutcome(value)).toBe('INVALID_INPUT');
      expect(uploadOutcome(JSON.stringify(value))).toBe('MALFORMED_INPUT');
    }
    expect(uploadOutcome('null')).toBe('MALFORMED_INPUT');
    expect(uploadOutcome('{')).toBe('MALFORMED_INPUT');
    expect(issueTypes(() => parseUploadMetadataField('{'))).toEqual(['json_invalid']);
    expect(parseUploadMetadataField(undefined)).toBeNull();
  });

  it('treats null as clearing on update and a missing field or non-object body as 422', () => {
    expect(parseMetadataUpdateBody({ metadata: null })).toBeNull();
    expect(outcome(() => parseMetadataUpdateBody({}))).toBe('INVALID_INPUT');
    expect(outcome(() => parseMetadataUpdateBody([]))).toBe('INVALID_INPUT');
    expect(outcome(() => parseMetadataUpdateBody(null))).toBe('INVALID_INPUT');
  });

  it('keeps __proto__ and constructor keys as plain data without polluting prototypes', () => {
    const text = '{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}},"x":1}';
    const fromUpload = parseUploadMetadataField(text)!;
    const fromUpdate = parseMetadataUpdateBody(JSON.parse(`{"metadata":${text}}`))!;
    for (const metadata of [fromUpload, fromUpdate]) {
      expect(Object.keys(metadata)).toEqual(['__proto__', 'constructor', 'x']);
      expect(Object.getPrototypeOf(metadata)).toBe(Object.prototype);
      expect(JSON.stringify(metadata)).toBe(text);
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect((Object.prototype as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('UTF-8 validity', () => {
  const encode = (text: string) => new TextEncoder().encode(text);
  const bytes = (...values: number[]) => Uint8Array.from(values);

  /** Valid text, random bytes, and valid text with a random byte spliced in or cut short. */
  const byteInput = fc.oneof(
    fc.uint8Array({ maxLength: 40 }),
    anyText({ maxLength: 30 }).map(encode),
    fc
      .tuple(
        anyText({ maxLength: 15 }),
        fc.uint8Array({ minLength: 1, maxLength: 4 }),
        anyText({ maxLength: 15 }),
      )
      .map(([a, noise, b]) => Uint8Array.from([...encode(a), ...noise, ...encode(b)])),
    anyText({ minLength: 1, maxLength: 10 })
      .map(encode)
      .chain((valid) => fc.nat({ max: valid.length - 1 }).map((cut) => valid.slice(0, cut))),
    fc
      .array(
        fc.constantFrom(
          0x00,
          0x7f,
          0x80,
          0xbf,
          0xc0,
          0xc1,
          0xc2,
          0xdf,
          0xe0,
          0xed,
          0xef,
          0xf0,
          0xf4,
          0xf5,
          0xff,
          0x9f,
          0xa0,
          0x8f,
          0x90,
        ),
        { maxLength: 12 },
      )
      .map((values) => Uint8Array.from(values)),
  );

  it('agrees with the Unicode Table 3-7 reference on edge cases', () => {
    const cases: Array<[Uint8Array, boolean]> = [
      [bytes(0xc0, 0x80), false],
      [bytes(0xc1, 0xbf), false],
      [bytes(0xe0, 0x80, 0x80), false],
      [bytes(0xe0, 0x9f, 0xbf), false],
      [bytes(0xf0, 0x80, 0x80, 0x80), false],
      [bytes(0xf0, 0x8f, 0xbf, 0xbf), false],
      [bytes(0xed, 0xa0, 0x80), false],
      [bytes(0xed, 0xbf, 0xbf), false],
      [bytes(0xed, 0x9f, 0xbf), true],
      [bytes(0xf4, 0x90, 0x80, 0x80), false],
      [bytes(0xf4, 0x8f, 0xbf, 0xbf), true],
      [bytes(0xf5, 0x80, 0x80, 0x80), false],
      [bytes(0xe2, 0x82), false],
      [bytes(0xf0, 0x9f, 0x98), false],
      [bytes(0x80), false],
      [bytes(0xff), false],
      [bytes(0xef, 0xbb, 0xbf), true],
      [bytes(0xef, 0xbb, 0xbf, 0x23, 0x20, 0x68, 0x69), true],
      [bytes(0xc2, 0x80), true],
      [bytes(0xe0, 0xa0, 0x80), true],
      [bytes(0xf0, 0x90, 0x80, 0x80), true],
      [bytes(0x00), true],
      [bytes(), true],
    ];
    for (const [input, valid] of cases) {
      expect(isWellFormedUtf8(input)).toBe(valid);
      expect(isValidUtf8(input)).toBe(valid);
    }
  });

  it('gives the reference verdict for any bytes', () => {
    fc.assert(
      fc.property(byteInput, (input) => {
        expect(isValidUtf8(input)).toBe(isWellFormedUtf8(input));
      }),
      { numRuns: 2000 },
    );
  });

  it('gives the same verdict for every chunking of the same bytes', () => {
    const chunked = byteInput.chain((input) =>
      fc
        .uniqueArray(fc.nat({ max: input.length }), { maxLength: Math.min(input.length + 1, 8) })
        .map((cuts) => ({ input, cuts: cuts.sort((a, b) => a - b) })),
    );
    fc.assert(
      fc.property(chunked, ({ input, cuts }) => {
        const validator = new Utf8Validator();
        let start = 0;
        let pushedValid = true;
        for (const cut of [...cuts, input.length]) {
          pushedValid = validator.push(input.subarray(start, cut)) && pushedValid;
          start = cut;
        }
        const verdict = pushedValid && validator.finish();
        expect(verdict).toBe(isWellFormedUtf8(input));
      }),
      { numRuns: 2000 },
    );
  });

  it('streams content through the UTF-8 and emptiness checks, whatever the chunking', async () => {
    const chunks = fc.array(byteInput, { maxLength: 5 });
    await fc.assert(
      fc.asyncProperty(chunks, async (parts) => {
        const all = Uint8Array.from(parts.flatMap((part) => [...part]));
        async function* source() {
          yield* parts;
        }
        const received: number[] = [];
        let code: ErrorCode | 'OK' = 'OK';
        try {
          for await (const chunk of checkedContent(source(), { loc: ['body'] })) received.push(...chunk);
        } catch (error) {
          if (!isMdStoreError(error)) throw error;
          code = error.code;
        }
        if (code === 'OK') {
          expect(all.length).toBeGreaterThan(0);
          expect(isWellFormedUtf8(all)).toBe(true);
          expect(Uint8Array.from(received)).toEqual(all);
        } else {
          expect(code).toBe('MALFORMED_INPUT');
          expect(all.length === 0 || !isWellFormedUtf8(all)).toBe(true);
        }
      }),
      { numRuns: 500 },
    );
  });
});
