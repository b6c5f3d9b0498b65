import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, readTlsFiles } from '../../src/config/index.js';

const PEM = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';

describe('readTlsFiles', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'mdstore-tls-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reads both PEM files', async () => {
    await writeFile(path.join(dir, 'cert.pem'), PEM);
    await writeFile(path.join(dir, 'key.pem'), PEM.replaceAll('CERTIFICATE', 'PRIVATE KEY'));
    const material = await readTlsFiles({
      certPath: path.join(dir, 'cert.pem'),
      keyPath: path.join(dir, 'key.pem'),
    });
    expect(material.cert.toString()).toBe(PEM);
    expect(material.key.toString()).toContain('BEGIN PRIVATE KEY');
  });

  it('names the variable of a missing file', async () => {
    await writeFile(path.join(dir, 'cert.pem'), PEM);
    const failure = readTlsFiles({
      certPath: path.join(dir, 'cert.pem'),
      keyPath: path.join(dir, 'nope.pem'),
    });
    await expect(failure).rejects.toBeInstanceOf(ConfigError);
    await expect(failure).rejects.toThrow(
      `MDSTORE_TLS_KEY: cannot read ${path.join(dir, 'nope.pem')} (ENOENT)`,
    );
  });

  it('names the variable of a file that is not PEM', async () => {
    await writeFile(path.join(dir, 'cert.pem'), 'hello');
    await writeFile(path.join(dir, 'key.pem'), PEM);
    await expect(
      readTlsFiles({ certPath: path.join(dir, 'cert.pem'), keyPath: path.join(dir, 'key.pem') }),
    ).rejects.toThrow(/^MDSTORE_TLS_CERT: .*cert\.pem is not a PEM file$/);
  });
});
