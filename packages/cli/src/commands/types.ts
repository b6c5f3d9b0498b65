import type { ParseArgsConfig } from 'node:util';
import type { CommandContext } from '../context.js';

export type Options = NonNullable<ParseArgsConfig['options']>;
export type Values = Record<string, string | boolean | undefined>;

export interface Command {
  /** `projects list`, `sync`, … */
  readonly name: string;
  readonly usage: string;
  readonly summary: string;
  readonly options: Options;
  /** How many positional arguments it takes. */
  readonly positionals: readonly [min: number, max: number];
  run(ctx: CommandContext, positionals: string[], values: Values): Promise<number>;
}
