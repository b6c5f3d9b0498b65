/** Limits and defaults of attachments (extensions §12), defined once. */
export const ATTACHMENT_LIMITS = Object.freeze({
  /** `MDSTORE_MAX_ATTACHMENT_BYTES`' default: 100 MiB. */
  defaultMaxAttachmentBytes: 100 * 1024 * 1024,
  /** Bytes of an attachment's head held to check its type against its `Content-Type`. */
  sniffBytes: 512,
  /** Longest `Content-Type` kept (a longer one is 400). */
  contentTypeMaxLength: 255,
  /** MCP `read_attachment`: images up to this size come back as image content, else a resource link. */
  mcpImageMaxBytes: 5 * 1024 * 1024,
  /** MCP `write_attachment`: decoded bytes of `content_base64` at most. */
  mcpWriteMaxBytes: 10 * 1024 * 1024,
});
