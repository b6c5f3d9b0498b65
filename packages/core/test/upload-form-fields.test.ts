import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { anAccount, blobKeys, createFixture, STORAGE_FORMS, textStream } from './support/fixture.js';
import { failure } from './support/store-scene.js';

/**
 * The form fields of an upload through the store's use case, on both storage forms: the `sha256` field
 * (extensions §2) before the file part (checked before any byte is read) or after it (checked in the
 * commit), and `metadata` before the file part (refused before the content is read). Nothing is stored
 * by a refusal. (The mutation run found these reached only by the HTTP suites; see docs/testing.md.)
 */

const TEXT = '# Hello\n';
const SHA = createHash('sha256').update(TEXT).digest('hex');
const OTHER_SHA = createHash('sha256').update('other').digest('hex');

/** A content stream that records whether it was read. */
function watched(text: string) {
  const seen = { read: false };
  async function* content() {
    seen.read = true;
    yield* textStream(text);
  }
  return { seen, content: content() };
}

for (const [form, inlineMaxBytes] of STORAGE_FORMS) {
  describe(`upload form fields (${form} content)`, () => {
    async function scene() {
      const fixture = createFixture({ settings: { inlineMaxBytes } });
      const alice = await anAccount(fixture.store, 'alice');
      const at = { principal: alice.principal, projectId: alice.defaultProjectId };
      const project = await fixture.store.projects.get(at);
      const nothingStored = async () => {
        expect((await fixture.store.files.list(at)).files).toEqual([]);
        expect(await blobKeys(fixture.blobs, project.bucketName)).toEqual([]);
        expect((await fixture.store.projects.get(at)).fileCount).toBe(0);
      };
      return { ...fixture, at, nothingStored };
    }

    it('a sha256 before the file that matches: stored, with that digest', async () => {
      const { store, at } = await scene();
      const file = await store.files.upload({
        ...at,
        filename: 'a.md',
        content: textStream(TEXT),
        sha256: SHA,
      });
      expect(file.sha256).toBe(SHA);
    });

    it('a sha256 before the file that does not match: 400 digest_mismatch at ["body","sha256"], nothing stored', async () => {
      const { store, at, nothingStored } = await scene();
      const refused = await failure(() =>
        store.files.upload({ ...at, filename: 'a.md', content: textStream(TEXT), sha256: OTHER_SHA }),
      );
      expect(refused.code).toBe('MALFORMED_INPUT');
      expect(refused.issues).toEqual([
        {
          loc: ['body', 'sha256'],
          msg: 'Value error, the digest does not match the content received',
          type: 'digest_mismatch',
        },
      ]);
      await nothingStored();
    });

    it('a malformed sha256 before the file: refused before a byte of content is read', async () => {
      const { store, at, nothingStored } = await scene();
      for (const sha256 of [SHA.toUpperCase(), SHA.slice(1), 'sha-256=:abc=:', '']) {
        const { seen, content } = watched(TEXT);
        const refused = await failure(() => store.files.upload({ ...at, filename: 'a.md', content, sha256 }));
        expect(refused.code).toBe('MALFORMED_INPUT');
        expect(refused.issues).toEqual([
          {
            loc: ['body', 'sha256'],
            msg: 'Value error, must be the SHA-256 of the content as 64 lower-case hex digits',
            type: 'value_error',
          },
        ]);
        expect(seen.read).toBe(false);
      }
      await nothingStored();
    });

    it('a sha256 after the file (known at the end of the form): checked against what was stored', async () => {
      const { store, at, nothingStored } = await scene();
      const refused = await failure(() =>
        store.files.upload({
          ...at,
          filename: 'a.md',
          content: textStream(TEXT),
          sha256: Promise.resolve(OTHER_SHA),
        }),
      );
      expect(refused.issues?.map((issue) => [issue.loc, issue.type])).toEqual([
        [['body', 'sha256'], 'digest_mismatch'],
      ]);
      const malformed = await failure(() =>
        store.files.upload({
          ...at,
          filename: 'a.md',
          content: textStream(TEXT),
          sha256: Promise.resolve('nope'),
        }),
      );
      expect(malformed.issues?.map((issue) => [issue.loc, issue.type])).toEqual([
        [['body', 'sha256'], 'value_error'],
      ]);
      await nothingStored();
      const late = await store.files.upload({
        ...at,
        filename: 'a.md',
        content: textStream(TEXT),
        sha256: Promise.resolve(SHA),
      });
      expect(late.sha256).toBe(SHA);
      const absent = await store.files.upload({
        ...at,
        filename: 'b.md',
        content: textStream(TEXT),
        sha256: Promise.resolve(undefined),
      });
      expect(absent.sha256).toBe(SHA);
    });

    it('metadata before the file that is not a JSON object: refused before the content is read', async () => {
      const { store, at, nothingStored } = await scene();
      const { seen, content } = watched(TEXT);
      const refused = await failure(() =>
        store.files.upload({ ...at, filename: 'a.md', content, metadata: '[1]' }),
      );
      expect([refused.code, refused.issues]).toEqual([
        'MALFORMED_INPUT',
        [{ loc: ['body', 'metadata'], msg: 'Input should be a valid dictionary', type: 'dict_type' }],
      ]);
      expect(seen.read).toBe(false);
      await nothingStored();
    });

    it('metadata after the file that is not JSON: refused, nothing stored; valid late metadata is kept', async () => {
      const { store, at, nothingStored } = await scene();
      const refused = await failure(() =>
        store.files.upload({
          ...at,
          filename: 'a.md',
          content: textStream(TEXT),
          metadata: Promise.resolve('{'),
        }),
      );
      expect([refused.code, refused.issues]).toEqual([
        'MALFORMED_INPUT',
        [{ loc: ['body', 'metadata'], msg: 'JSON decode error', type: 'json_invalid' }],
      ]);
      await nothingStored();
      const kept = await store.files.upload({
        ...at,
        filename: 'a.md',
        content: textStream(TEXT),
        metadata: Promise.resolve('{"tags":["x"]}'),
      });
      expect(kept.metadata).toEqual({ tags: ['x'] });
    });
  });
}
