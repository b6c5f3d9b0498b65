import type { Readable } from 'node:stream';
import type { ImportArchive } from '@mdstore/core';
import type { ImportBounds } from './bounds.js';
import { readTarGz } from './tar.js';
import { readZip } from './zip.js';

export type { ImportBounds } from './bounds.js';
export { ArchiveTally } from './bounds.js';

/** The archive formats an import reads, by the body's media type (extensions §10). */
export const IMPORT_MEDIA_TYPES = {
  'application/zip': readZip,
  'application/gzip': readTarGz,
} as const satisfies Record<string, (body: Readable, bounds: ImportBounds) => ImportArchive>;

export type ImportMediaType = keyof typeof IMPORT_MEDIA_TYPES;

export const isImportMediaType = (value: string | undefined): value is ImportMediaType =>
  value !== undefined && Object.hasOwn(IMPORT_MEDIA_TYPES, value);

/** The entries of an archive body of that media type, read as they are asked for. */
export const readImportBody = (type: ImportMediaType, body: Readable, bounds: ImportBounds): ImportArchive =>
  IMPORT_MEDIA_TYPES[type](body, bounds);
