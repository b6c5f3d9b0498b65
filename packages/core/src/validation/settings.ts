import * as v from 'valibot';
import type { MdStoreSettings } from '../use-cases/context.js';

const positiveInteger = v.pipe(v.number(), v.integer(), v.minValue(1));

/** A bucket name is prefix + 36-character UUID and must stay a valid S3 bucket name (3-63 characters). */
const BucketPrefixSchema = v.pipe(
  v.string(),
  v.regex(
    /^[a-z0-9][a-z0-9-]{0,26}$/,
    'must be 1-27 characters of a-z, 0-9 and -, starting with a letter or digit',
  ),
);

export const SettingsSchema = v.object({
  maxFileBytes: positiveInteger,
  maxAttachmentBytes: positiveInteger,
  inlineMaxBytes: v.pipe(v.number(), v.integer(), v.minValue(0)),
  maxProjectBytes: positiveInteger,
  maxImportBytes: positiveInteger,
  rateLimits: v.object({ standard: positiveInteger, premium: positiveInteger }),
  rateLimitWindowMs: positiveInteger,
  authFailureLimit: positiveInteger,
  authFailureWindowMs: positiveInteger,
  bucketPrefix: BucketPrefixSchema,
  writeDeadlineMs: positiveInteger,
  instanceLeaseMs: positiveInteger,
  auditRetentionDays: positiveInteger,
  changesRetentionDays: positiveInteger,
  shareRateLimit: positiveInteger,
  contentBudgetBytes: positiveInteger,
  contentBudgetWaitMs: positiveInteger,
});

export function validateSettings(settings: MdStoreSettings): MdStoreSettings {
  const result = v.safeParse(SettingsSchema, settings);
  if (!result.success) {
    const issue = result.issues[0]!;
    const path = (issue.path ?? []).map((item) => String(item.key)).join('.');
    throw new TypeError(`Invalid mdstore setting ${path}: ${issue.message}`);
  }
  return result.output;
}
