import { readFile } from 'node:fs/promises';
import { ConfigError } from './errors.js';
import type { ServerConfig } from './types.js';

export interface TlsMaterial {
  readonly cert: Buffer;
  readonly key: Buffer;
}

/** Reads the PEM files named by the configuration; an unreadable file is a `ConfigError` naming its variable. */
export async function readTlsFiles(tls: NonNullable<ServerConfig['tls']>): Promise<TlsMaterial> {
  // Both read at once; when both fail, the certificate's error is the one reported (in the order of the
  // settings, whichever read finished first), so the same configuration always gives the same line.
  const [cert, key] = await Promise.allSettled([
    readPem('MDSTORE_TLS_CERT', tls.certPath),
    readPem('MDSTORE_TLS_KEY', tls.keyPath),
  ]);
  if (cert.status === 'rejected') throw cert.reason;
  if (key.status === 'rejected') throw key.reason;
  return { cert: cert.value, key: key.value };
}

async function readPem(variable: string, file: string): Promise<Buffer> {
  let content: Buffer;
  try {
    content = await readFile(file);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    throw new ConfigError(
      variable,
      `cannot read ${file} (${typeof code === 'string' ? code : 'unknown error'})`,
    );
  }
  if (!content.includes('-----BEGIN ')) throw new ConfigError(variable, `${file} is not a PEM file`);
  return content;
}
