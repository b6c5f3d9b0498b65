/** A configuration value that cannot be used. The message is one line and names the variable. */
export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    problem: string,
  ) {
    super(`${variable}: ${problem}`.replace(/[\r\n]+/g, ' '));
    this.name = 'ConfigError';
  }
}
