import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** One row of `bench/results/latest.json`. `ratio` is always oriented so that higher is better. */
export interface ResultRow {
  readonly scenario: string;
  readonly metric: string;
  readonly mdstore: number;
  readonly baseline: number;
  readonly baseline_name: string;
  readonly ratio: number;
}

const round = (value: number, digits = 3) => {
  if (!Number.isFinite(value)) return value;
  const scale = 10 ** Math.max(0, digits - Math.floor(Math.log10(Math.abs(value) || 1)) - 1);
  return Math.round(value * scale) / scale;
};

export class Results {
  readonly rows: ResultRow[] = [];
  readonly failures: { scenario: string; error: string }[] = [];

  /** A metric where more is better (throughput): ratio = mdstore / baseline. */
  higher(scenario: string, metric: string, mdstore: number, baseline: number, baselineName: string): void {
    this.add({ scenario, metric, mdstore, baseline, baseline_name: baselineName, ratio: mdstore / baseline });
  }

  /** A metric where less is better (latency, memory): the metric says so; ratio = baseline / mdstore. */
  lower(scenario: string, metric: string, mdstore: number, baseline: number, baselineName: string): void {
    const labelled = metric.includes('lower is better') ? metric : `${metric} (lower is better)`;
    this.add({
      scenario,
      metric: labelled,
      mdstore,
      baseline,
      baseline_name: baselineName,
      ratio: baseline / mdstore,
    });
  }

  private add(row: ResultRow): void {
    const rounded = {
      ...row,
      mdstore: round(row.mdstore, 4),
      baseline: round(row.baseline, 4),
      ratio: round(row.ratio, 3),
    };
    this.rows.push(rounded);
    process.stdout.write(`  ${formatRow(rounded)}\n`);
  }

  async write(file: string): Promise<void> {
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, `${JSON.stringify(this.rows, null, 2)}\n`);
  }
}

function formatRow(row: ResultRow): string {
  return `${row.scenario} | ${row.metric}: mdstore ${row.mdstore}, ${row.baseline_name} ${row.baseline}, ratio ${row.ratio}`;
}

/** The results as a Markdown table (also readable in a terminal). */
export function markdownTable(rows: readonly ResultRow[]): string {
  const header = ['scenario', 'metric', 'mdstore', 'baseline', 'baseline name', 'ratio'];
  const lines = rows.map((row) => [
    row.scenario,
    row.metric,
    String(row.mdstore),
    String(row.baseline),
    row.baseline_name,
    `${row.ratio}×`,
  ]);
  const widths = header.map((title, column) =>
    Math.max(title.length, ...lines.map((line) => line[column]!.length)),
  );
  const format = (cells: readonly string[]) =>
    `| ${cells.map((cell, column) => cell.padEnd(widths[column]!)).join(' | ')} |`;
  return [
    format(header),
    `|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`,
    ...lines.map(format),
  ].join('\n');
}
