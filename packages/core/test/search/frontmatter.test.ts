import { parseFrontmatter, SEARCH_LIMITS } from '@mdstore/core';
import { describe, expect, it } from 'vitest';

const block = (yaml: string) => `---\n${yaml}---\n# Body\n`;

describe('parseFrontmatter: finding the block', () => {
  it('reads a block that opens the content and a later --- or ... line closes', () => {
    expect(parseFrontmatter('---\ntitle: Hello\n---\n# Body')).toEqual({ title: 'Hello' });
    expect(parseFrontmatter('---\ntitle: Hello\n...\n# Body')).toEqual({ title: 'Hello' });
    expect(parseFrontmatter('---\ntitle: Hello\n---')).toEqual({ title: 'Hello' });
    expect(parseFrontmatter('\ufeff---\ntitle: Hello\n---\n')).toEqual({ title: 'Hello' });
    expect(parseFrontmatter('---\r\ntitle: Hello\r\n---\r\nbody')).toEqual({ title: 'Hello' });
    expect(parseFrontmatter('---\rtitle: Hello\r---\rbody')).toEqual({ title: 'Hello' });
    expect(parseFrontmatter('---\ra: |\r  x\r\n  y\r---\r')).toEqual({ a: 'x\ny\n' });
    expect(parseFrontmatter('--- \t\ntitle: Hello\n---  \n')).toEqual({ title: 'Hello' });
    expect(parseFrontmatter('---\n\ntitle: Hello\n\n---\n---\nx: 1\n---\n')).toEqual({ title: 'Hello' });
    expect(parseFrontmatter('---\na: "---"\nb: |\n  ...x\n---\n')).toEqual({ a: '---', b: '...x\n' });
  });

  it('finds no block otherwise', () => {
    for (const content of [
      '',
      '# Title\n---\na: 1\n---\n',
      '\n---\na: 1\n---\n',
      ' ---\na: 1\n---\n',
      '---a: 1\n---\n',
      '--- a: 1\n---\n',
      '----\na: 1\n---\n',
      '---\na: 1\n----\n',
      '---\na: 1\n --- \n',
      '---\na: 1\n',
      '---',
      '---\n',
      '\ufeff\ufeff---\na: 1\n---\n',
    ]) {
      expect(parseFrontmatter(content), JSON.stringify(content)).toBeNull();
    }
  });
});

describe('parseFrontmatter: YAML 1.2 core schema', () => {
  it('gives JSON values; dates and YAML 1.1 booleans stay strings', () => {
    const yaml = [
      'title: Notes',
      'date: 2024-01-02',
      'stamp: 2001-12-14t21:59:43.10-05:00',
      'draft: no',
      'on: yes',
      'flag: true',
      'empty:',
      'tilde: ~',
      'int: 42',
      'octal: 0o17',
      'leading: 012',
      'hex: 0x1F',
      'float: 1.5e3',
      'neg: -0',
      'quoted: "1"',
      'str: !!str 12',
      'list: [a, 1, {b: c}]',
      'nested:',
      '  deep:',
      '    - x',
      '<<: {merged: 1}',
      '',
    ].join('\n');
    const parsed = parseFrontmatter(block(yaml));
    expect(parsed).toEqual({
      title: 'Notes',
      date: '2024-01-02',
      stamp: '2001-12-14t21:59:43.10-05:00',
      draft: 'no',
      on: 'yes',
      flag: true,
      empty: null,
      tilde: null,
      int: 42,
      octal: 15,
      leading: 12,
      hex: 31,
      float: 1500,
      neg: 0,
      quoted: '1',
      str: '12',
      list: ['a', 1, { b: 'c' }],
      nested: { deep: ['x'] },
      '<<': { merged: 1 },
    });
    expect(Object.is(parsed!.neg, 0)).toBe(true);
  });

  it('keeps __proto__ as a member, not a prototype', () => {
    const parsed = parseFrontmatter(block('__proto__: {polluted: 1}\n'))!;
    expect(Object.keys(parsed)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
    expect((parsed as Record<string, unknown>).polluted).toBeUndefined();
    expect(JSON.stringify(parsed)).toBe('{"__proto__":{"polluted":1}}');
  });

  it('resolves aliases to copies of their anchors', () => {
    expect(parseFrontmatter(block('a: &x {k: [1]}\nb: *x\n'))).toEqual({ a: { k: [1] }, b: { k: [1] } });
  });

  it.each([
    ['invalid YAML', 'a: [1, 2\n'],
    ['a tab indentation error', 'a:\n\t- b\n'],
    ['duplicate keys', 'a: 1\na: 2\n'],
    ['an alias to no anchor', 'a: *nothing\n'],
    ['a list', '- a\n- b\n'],
    ['a scalar', 'just text\n'],
    ['an empty block', ''],
    ['only a comment', '# nothing\n'],
    ['null', '~\n'],
    ['.inf', 'a: .inf\n'],
    ['-.inf', 'a: [-.inf]\n'],
    ['.nan', 'a: {b: .nan}\n'],
    ['a number too big for a double', 'a: 1e400\n'],
    ['a number key', '1: a\n'],
    ['a boolean key', 'true: a\n'],
    ['a null key', '~: a\n'],
    ['an empty key', '? \n: a\n'],
    ['a collection key', '? [a]\n: b\n'],
    ['a binary', 'a: !!binary aGk=\n'],
    ['a set', 'a: !!set {x}\n'],
    ['an ordered map', 'a: !!omap [x: 1]\n'],
    ['a timestamp tag', 'a: !!timestamp 2001-01-01\n'],
    ['a local tag', 'a: !thing x\n'],
    ['a tagged mapping', '!thing {a: 1}\n'],
  ])('is null for %s', (_name, yaml) => {
    expect(parseFrontmatter(block(yaml))).toBeNull();
  });

  it('keeps a string key that looks like another type when quoted', () => {
    expect(parseFrontmatter(block('"1": a\n"true": b\n'))).toEqual({ 1: 'a', true: 'b' });
  });
});

describe('parseFrontmatter: bounds', () => {
  const sized = (bytes: number) => {
    // `a: ` + value + newline: the block is the text between the marker lines.
    const yaml = `a: ${'é'.repeat(Math.floor((bytes - 4) / 2))}${(bytes - 4) % 2 ? 'x' : ''}\n`;
    expect(new TextEncoder().encode(yaml).length).toBe(bytes);
    return block(yaml);
  };

  it('takes a block of 64 KiB of UTF-8 and refuses one byte more', () => {
    expect(SEARCH_LIMITS.frontmatterMaxBytes).toBe(65_536);
    expect(parseFrontmatter(sized(65_536))).not.toBeNull();
    expect(parseFrontmatter(sized(65_537))).toBeNull();
    expect(parseFrontmatter(`---\n${'a'.repeat(65_535)}\n---\n`)).toBeNull();
    // The closing line found exactly 64 KiB of ASCII after the opening one.
    expect(parseFrontmatter(block(`a: ${'x'.repeat(65_532)}\n`))).toEqual({ a: 'x'.repeat(65_532) });
  });

  it('looks no further than 64 KiB for the closing line', () => {
    // A closing line 10 MB down is not found: the scan stops at 64 KiB (a clock would only time it).
    const huge = `---\na: 1\n${'x\n'.repeat(5_000_000)}---\n`;
    expect(parseFrontmatter(huge)).toBeNull();
  });

  const nested = (levels: number) => `a: ${'['.repeat(levels - 1)}1${']'.repeat(levels - 1)}\n`;

  it('takes 32 levels and refuses 33 (the top mapping is level 1)', () => {
    expect(parseFrontmatter(block(nested(32)))).not.toBeNull();
    expect(parseFrontmatter(block(nested(33)))).toBeNull();
    expect(parseFrontmatter(block(`a: ${'{a: '.repeat(31)}1${'}'.repeat(31)}\n`))).not.toBeNull();
    expect(parseFrontmatter(block(`a: ${'{a: '.repeat(32)}1${'}'.repeat(32)}\n`))).toBeNull();
  });

  it('takes 100 aliases and refuses 101', () => {
    const aliases = (n: number) => `a: &x 1\nb: [${Array.from({ length: n }, () => '*x').join(', ')}]\n`;
    expect(parseFrontmatter(block(aliases(100)))).toMatchObject({ b: Array.from({ length: 100 }, () => 1) });
    expect(parseFrontmatter(block(aliases(101)))).toBeNull();
  });

  it('counts aliases as they expand', () => {
    // The anchor holds 10 aliases; each use of it expands them again.
    const yaml = (uses: number) =>
      `a: &one 1\nten: &ten [${Array.from({ length: 10 }, () => '*one').join(', ')}]\nuses: [${Array.from({ length: uses }, () => '*ten').join(', ')}]\n`;
    // 10 + 8 × (1 + 10) = 98 expansions; with 9 uses, 109.
    expect(parseFrontmatter(block(yaml(8)))).not.toBeNull();
    expect(parseFrontmatter(block(yaml(9)))).toBeNull();
  });

  it('takes 65 536 values once expanded and refuses more', () => {
    // 1 (top) + 2 + L (a: list) + 2 (b: list) + 64 × (1 + 1 + L) (aliases) + 1 (a scalar) + 2 × 6 (pairs).
    const L = 1006;
    const yaml = (extra: number) =>
      [
        `a: &x [${Array.from({ length: L }, () => '0').join(',')}]`,
        `b: [${Array.from({ length: 64 }, () => '*x').join(',')}${',0'.repeat(extra)}]`,
        ...Array.from({ length: 6 }, (_, i) => `k${i}: 0`),
        '',
      ].join('\n');
    expect(1 + 2 + L + 2 + 64 * (2 + L) + 1 + 12).toBe(65_536);
    expect(parseFrontmatter(block(yaml(1)))).not.toBeNull();
    expect(parseFrontmatter(block(yaml(2)))).toBeNull();
  });
});

describe('parseFrontmatter: hostile YAML', () => {
  it('refuses a billion laughs at once', () => {
    const lines = ['a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]'];
    for (let level = 1; level <= 9; level += 1) {
      const refs = Array.from({ length: 9 }, () => `*a${level - 1}`).join(', ');
      lines.push(`a${level}: &a${level} [${refs}]`);
    }
    expect(parseFrontmatter(block(`${lines.join('\n')}\n`))).toBeNull();
  });

  it('refuses an alias to itself', () => {
    expect(parseFrontmatter(block('a: &x [*x]\n'))).toBeNull();
    expect(parseFrontmatter(block('a: &x {b: *x}\n'))).toBeNull();
  });

  it('refuses deep nesting filling the block', () => {
    for (const [open, close] of [
      ['[', ']'],
      ['{a: ', '}'],
    ] as const) {
      const depth = Math.floor(65_000 / (open.length + close.length));
      expect(parseFrontmatter(block(`a: ${open.repeat(depth)}${close.repeat(depth)}\n`))).toBeNull();
    }
    const indented = Array.from({ length: 2000 }, (_, i) => `${' '.repeat(i)}k:`).join('\n');
    expect(parseFrontmatter(block(`${indented} 1\n`))).toBeNull();
  });

  it('survives many keys and long strings within 64 KiB', () => {
    const keys = Array.from({ length: 5000 }, (_, i) => `k${i}: ${i}`).join('\n');
    expect(Object.keys(parseFrontmatter(block(`${keys}\n`))!)).toHaveLength(5000);
    expect(parseFrontmatter(block(`a: ${'x'.repeat(65_000)}\n`))!.a).toHaveLength(65_000);
  });
});
