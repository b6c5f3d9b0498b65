import { describe, expect, it } from 'vitest';
import { ConfigError, type Environment, loadConfig } from '../../src/config/index.js';
import { BUILTIN_MODEL, embedderOf } from '../../src/embeddings/index.js';

/** `MDSTORE_EMBEDDINGS*` (extensions §15): off by default; builtin is the model shipped in a package; openai needs its URL and model. */
const load = (env: Environment) => loadConfig(env, { cwd: '/srv/mdstore' });
const refusal = (env: Environment): ConfigError => {
  try {
    load(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error('the configuration was accepted');
};

describe('MDSTORE_EMBEDDINGS', () => {
  it('is off by default: no embedder', () => {
    expect(load({}).embeddings).toEqual({ kind: 'off' });
    expect(embedderOf(load({ MDSTORE_EMBEDDINGS: 'off' }).embeddings)).toBeUndefined();
  });

  it('builtin is the model shipped in a package, whose thread the runtime closes', async () => {
    const config = load({ MDSTORE_EMBEDDINGS: 'Builtin' });
    expect(config.embeddings).toEqual({ kind: 'builtin' });
    const closers: Array<() => Promise<void>> = [];
    const embedder = embedderOf(config.embeddings, closers);
    expect(embedder?.model).toBe(BUILTIN_MODEL);
    expect(embedder?.dimensions).toBe(512);
    expect(closers).toHaveLength(1);
    await closers[0]!();
  });

  it('openai needs a URL and a model; the key is optional and never echoed', () => {
    expect(refusal({ MDSTORE_EMBEDDINGS: 'openai', MDSTORE_EMBEDDINGS_MODEL: 'm' }).variable).toBe(
      'MDSTORE_EMBEDDINGS_URL',
    );
    expect(
      refusal({ MDSTORE_EMBEDDINGS: 'openai', MDSTORE_EMBEDDINGS_URL: 'http://127.0.0.1:11434/v1' }).variable,
    ).toBe('MDSTORE_EMBEDDINGS_MODEL');
    expect(refusal({ MDSTORE_EMBEDDINGS_URL: 'ftp://example.com' }).variable).toBe('MDSTORE_EMBEDDINGS_URL');
    const config = load({
      MDSTORE_EMBEDDINGS: 'OpenAI',
      MDSTORE_EMBEDDINGS_URL: 'https://api.example.com/v1',
      MDSTORE_EMBEDDINGS_MODEL: 'text-embedding-3-small',
      MDSTORE_EMBEDDINGS_KEY: 'sk-secret',
    });
    expect(config.embeddings).toEqual({
      kind: 'openai',
      url: 'https://api.example.com/v1',
      model: 'text-embedding-3-small',
      key: 'sk-secret',
    });
    expect(embedderOf(config.embeddings)?.model).toBe('text-embedding-3-small');
    expect(
      refusal({ MDSTORE_EMBEDDINGS: 'nope', MDSTORE_EMBEDDINGS_KEY: 'sk-secret' }).message,
    ).not.toContain('sk-secret');
  });

  it('hashed is the deterministic provider', () => {
    expect(embedderOf(load({ MDSTORE_EMBEDDINGS: 'hashed' }).embeddings)?.model).toBe('hashed-256');
  });
});
