import {
  checkUploadFilename,
  InputError,
  isMdStoreError,
  parseAccountName,
  parseCreateProjectBody,
  parseMetadataUpdateBody,
  parseProjectId,
  parseTier,
  parseUpdateProjectBody,
  parseUploadMetadataField,
  type ValidationIssue,
  validateSettings,
} from '@mdstore/core';
import { describe, expect, it } from 'vitest';

/**
 * Rules of the validation layer that the mutation run (docs/testing.md) showed untested: where an
 * issue is reported (`loc`), which type it carries, and the edges of the patterns. A client relies on
 * `loc` to point at the field to fix, so each is a behaviour, not a detail.
 */
function failure(run: () => unknown): { code: string; issues: readonly ValidationIssue[] } {
  try {
    run();
  } catch (error) {
    if (!isMdStoreError(error)) throw error;
    return { code: error.code, issues: error instanceof InputError ? error.issues : [] };
  }
  throw new Error('expected the call to fail');
}

const ID = '0f8fad5b-d9cb-469f-a165-70867728950e';

describe('project ids', () => {
  it('accepts a canonical UUID in any case and keeps it in lower case', () => {
    expect(parseProjectId(ID)).toBe(ID);
    expect(parseProjectId(ID.toUpperCase())).toBe(ID);
  });

  it('refuses a UUID with anything before or after it, at path.project_id', () => {
    for (const bad of [`x${ID}`, `${ID}x`, ` ${ID}`, `${ID}\n`, `${ID}-0000`, ID.replaceAll('-', '')]) {
      const { code, issues } = failure(() => parseProjectId(bad));
      expect(code).toBe('INVALID_INPUT');
      expect(issues).toEqual([
        { loc: ['path', 'project_id'], msg: 'Input should be a valid UUID', type: 'uuid_parsing' },
      ]);
    }
  });

  it('refuses a non-string id as a UUID problem', () => {
    expect(failure(() => parseProjectId(42)).issues[0]?.type).toBe('uuid_parsing');
  });
});

describe('tiers', () => {
  it('accepts the two tiers and refuses any other at loc tier', () => {
    expect(parseTier('standard')).toBe('standard');
    expect(parseTier('premium')).toBe('premium');
    for (const bad of ['gold', 'Standard', '', null, 1]) {
      const { code, issues } = failure(() => parseTier(bad));
      expect(code).toBe('INVALID_INPUT');
      expect(issues).toEqual([
        { loc: ['tier'], msg: "Input should be 'standard' or 'premium'", type: 'enum' },
      ]);
    }
  });
});

describe('account names', () => {
  it('reports a bad name at loc name', () => {
    expect(parseAccountName('ops')).toBe('ops');
    expect(failure(() => parseAccountName('')).issues).toEqual([
      { loc: ['name'], msg: 'String should have at least 1 character', type: 'string_too_short' },
    ]);
  });
});

describe('project bodies', () => {
  it('reports a non-object body at loc body, and a missing name at body.name', () => {
    expect(failure(() => parseCreateProjectBody([])).issues).toEqual([
      { loc: ['body'], msg: 'Input should be a valid dictionary or object', type: 'model_attributes_type' },
    ]);
    const missing = failure(() => parseCreateProjectBody({}));
    expect(missing.code).toBe('MALFORMED_INPUT');
    expect(missing.issues).toEqual([{ loc: ['body', 'name'], msg: 'Field required', type: 'missing' }]);
  });

  it('reports a bad description at body.description', () => {
    expect(failure(() => parseCreateProjectBody({ name: 'a', description: 5 })).issues).toEqual([
      { loc: ['body', 'description'], msg: 'Input should be a valid string', type: 'string_type' },
    ]);
  });

  it('reports each bad setting at its own key under body.settings, all at once', () => {
    const { code, issues } = failure(() =>
      parseCreateProjectBody({
        name: 'a',
        settings: { require_if_match: 'yes', keep_revisions: 0, trash_retention_days: 366, colour: 'red' },
      }),
    );
    expect(code).toBe('INVALID_INPUT');
    expect(issues).toEqual([
      {
        loc: ['body', 'settings', 'require_if_match'],
        msg: 'Input should be a valid boolean',
        type: 'bool_type',
      },
      {
        loc: ['body', 'settings', 'keep_revisions'],
        msg: 'Input should be greater than or equal to 1',
        type: 'greater_than_equal',
      },
      {
        loc: ['body', 'settings', 'trash_retention_days'],
        msg: 'Input should be less than or equal to 365',
        type: 'less_than_equal',
      },
      { loc: ['body', 'settings', 'colour'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' },
    ]);
  });

  it('reports a fractional or non-number setting as an integer problem', () => {
    const { issues } = failure(() =>
      parseUpdateProjectBody({ settings: { keep_revisions: 1.5, trash_retention_days: '3' } }),
    );
    expect(issues.map((issue) => [issue.loc.join('.'), issue.type, issue.msg])).toEqual([
      ['body.settings.keep_revisions', 'int_type', 'Input should be a valid integer'],
      ['body.settings.trash_retention_days', 'int_type', 'Input should be a valid integer'],
    ]);
  });

  it('reports settings that are not an object at body.settings', () => {
    expect(failure(() => parseUpdateProjectBody({ settings: [] })).issues).toEqual([
      { loc: ['body', 'settings'], msg: 'Input should be a valid dictionary', type: 'dict_type' },
    ]);
  });

  it('maps the API names of settings to the domain names, at both ends of their ranges', () => {
    expect(
      parseCreateProjectBody({
        name: 'a',
        settings: { require_if_match: true, keep_revisions: 1000, trash_retention_days: 0 },
      }).settings,
    ).toEqual({ requireIfMatch: true, keepRevisions: 1000, trashRetentionDays: 0 });
    expect(parseUpdateProjectBody({ settings: { keep_revisions: 1, trash_retention_days: 365 } })).toEqual({
      settings: { keepRevisions: 1, trashRetentionDays: 365 },
    });
  });

  it('an update names only the fields given; an explicit null clears the description', () => {
    expect(parseUpdateProjectBody({ name: 'n' })).toEqual({ name: 'n' });
    expect(parseUpdateProjectBody({ description: null })).toEqual({ description: null });
    expect(parseUpdateProjectBody({ settings: {} })).toEqual({ settings: {} });
    const none = failure(() => parseUpdateProjectBody({ other: 1 }));
    expect(none.code).toBe('MALFORMED_INPUT');
    expect(none.issues[0]?.loc).toEqual(['body']);
  });
});

describe('metadata', () => {
  it('reports a missing or non-object metadata at body.metadata (422)', () => {
    const missing = failure(() => parseMetadataUpdateBody({}));
    expect(missing.code).toBe('INVALID_INPUT');
    expect(missing.issues).toEqual([{ loc: ['body', 'metadata'], msg: 'Field required', type: 'missing' }]);
    expect(failure(() => parseMetadataUpdateBody({ metadata: [1] })).issues).toEqual([
      { loc: ['body', 'metadata'], msg: 'Input should be a valid dictionary', type: 'dict_type' },
    ]);
    expect(parseMetadataUpdateBody({ metadata: null })).toBeNull();
  });

  it('reports a bad upload metadata field at body.metadata (400)', () => {
    expect(parseUploadMetadataField(undefined)).toBeNull();
    const invalid = failure(() => parseUploadMetadataField('{'));
    expect(invalid.code).toBe('MALFORMED_INPUT');
    expect(invalid.issues).toEqual([
      { loc: ['body', 'metadata'], msg: 'JSON decode error', type: 'json_invalid' },
    ]);
    const notObject = failure(() => parseUploadMetadataField('[]'));
    expect(notObject.code).toBe('MALFORMED_INPUT');
    expect(notObject.issues[0]?.loc).toEqual(['body', 'metadata']);
  });
});

describe('filenames at a given loc', () => {
  it('reports problems of a move or copy target at the loc given, upload problems at body.file', () => {
    expect(failure(() => checkUploadFilename('a//b.md', ['body', 'to'])).issues[0]?.loc).toEqual([
      'body',
      'to',
    ]);
    expect(failure(() => checkUploadFilename('.md', ['body', 'to'])).issues[0]?.loc).toEqual(['body', 'to']);
    expect(failure(() => checkUploadFilename('a\\b.md')).issues[0]?.loc).toEqual(['body', 'file']);
  });
});

describe('settings of the store', () => {
  it('names the first bad setting by its path', () => {
    const good = {
      maxFileBytes: 1,
      inlineMaxBytes: 0,
      maxProjectBytes: 1,
      maxImportBytes: 1,
      rateLimits: { standard: 1, premium: 1 },
      rateLimitWindowMs: 1,
      authFailureLimit: 1,
      authFailureWindowMs: 1,
      bucketPrefix: 'p',
      writeDeadlineMs: 1,
      instanceLeaseMs: 1,
      auditRetentionDays: 1,
      changesRetentionDays: 1,
      shareRateLimit: 1,
      contentBudgetBytes: 1,
      contentBudgetWaitMs: 1,
      maxAttachmentBytes: 1,
    };
    expect(validateSettings(good)).toEqual(good);
    expect(() => validateSettings({ ...good, rateLimits: { standard: 1, premium: 0 } })).toThrow(
      /^Invalid mdstore setting rateLimits\.premium: /,
    );
    expect(() => validateSettings({ ...good, bucketPrefix: '-p' })).toThrow(/bucketPrefix: must be 1-27/);
    expect(() => validateSettings({ ...good, bucketPrefix: 'a'.repeat(28) })).toThrow(/bucketPrefix/);
    expect(() => validateSettings({ ...good, inlineMaxBytes: -1 })).toThrow(/inlineMaxBytes/);
    expect(() => validateSettings({ ...good, contentBudgetBytes: 0 })).toThrow(/contentBudgetBytes/);
  });
});
