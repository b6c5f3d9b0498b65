import { describe, expect, it } from 'vitest';
import { ConfigError, type Environment, loadConfig } from '../../src/config/index.js';

const load = (env: Environment) => loadConfig(env, { cwd: '/srv/mdstore' });
const TOKEN = 'b3f1c2d4e5f60718293a4b5c6d7e8f90';

function refusal(env: Environment): ConfigError {
  try {
    load(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).not.toMatch(/[\r\n]/);
    return error as ConfigError;
  }
  throw new Error(`configuration accepted: ${JSON.stringify(env)}`);
}

describe('MDSTORE_METRICS_*', () => {
  it('is off without a port, and warns about a host or token that then has no effect', () => {
    expect(load({}).metrics).toBeNull();
    const config = load({ MDSTORE_METRICS_HOST: '10.0.0.5', MDSTORE_METRICS_TOKEN: TOKEN });
    expect(config.metrics).toBeNull();
    expect(config.warnings).toEqual([
      'MDSTORE_METRICS_HOST is ignored: MDSTORE_METRICS_PORT is unset',
      'MDSTORE_METRICS_TOKEN is ignored: MDSTORE_METRICS_PORT is unset',
    ]);
  });

  it('listens on loopback by default, with or without a token', () => {
    expect(load({ MDSTORE_METRICS_PORT: '9464' }).metrics).toEqual({
      host: '127.0.0.1',
      port: 9464,
      token: null,
    });
    expect(load({ MDSTORE_METRICS_PORT: '0', MDSTORE_METRICS_HOST: '[::1]' }).metrics).toEqual({
      host: '::1',
      port: 0,
      token: null,
    });
    expect(load({ MDSTORE_METRICS_PORT: '9464', MDSTORE_METRICS_TOKEN: TOKEN }).metrics?.token).toBe(TOKEN);
  });

  it('refuses a non-loopback host without a token, in one line naming the token variable', () => {
    for (const host of ['0.0.0.0', '10.0.0.5', '::', 'metrics.internal']) {
      const error = refusal({ MDSTORE_METRICS_PORT: '9464', MDSTORE_METRICS_HOST: host });
      expect(error.variable).toBe('MDSTORE_METRICS_TOKEN');
      expect(error.message).toMatch(
        /^MDSTORE_METRICS_TOKEN: must be set when MDSTORE_METRICS_HOST is not a loopback address/,
      );
    }
    expect(
      load({ MDSTORE_METRICS_PORT: '9464', MDSTORE_METRICS_HOST: '0.0.0.0', MDSTORE_METRICS_TOKEN: TOKEN })
        .metrics,
    ).toEqual({ host: '0.0.0.0', port: 9464, token: TOKEN });
  });

  it('refuses a bad port, host or token, never echoing the token', () => {
    expect(refusal({ MDSTORE_METRICS_PORT: 'ninety' }).variable).toBe('MDSTORE_METRICS_PORT');
    expect(refusal({ MDSTORE_METRICS_PORT: '9464', MDSTORE_METRICS_HOST: 'a b' }).variable).toBe(
      'MDSTORE_METRICS_HOST',
    );
    for (const token of ['short', 'has spaces in it somewhere', `${'x'.repeat(20)}\u00e9`]) {
      const error = refusal({ MDSTORE_METRICS_PORT: '9464', MDSTORE_METRICS_TOKEN: token });
      expect(error.variable).toBe('MDSTORE_METRICS_TOKEN');
      expect(error.message).not.toContain(token);
    }
    expect(refusal({ PORT: '9000', MDSTORE_METRICS_PORT: '9000' }).message).toBe(
      'MDSTORE_METRICS_PORT: must differ from PORT (both are 9000)',
    );
  });
});
