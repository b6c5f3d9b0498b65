import { EXIT } from '../context.js';
import { formatBytes, table } from '../format.js';
import type { Command } from './types.js';

export const projectsList: Command = {
  name: 'projects list',
  usage: 'mdstore projects list [--all] [--json]',
  summary: 'the projects of the account (--all: deleted ones too)',
  options: { all: { type: 'boolean' } },
  positionals: [0, 0],
  async run(ctx, _args, values) {
    const client = await ctx.client();
    const projects = [];
    for await (const project of client.projects.iterate()) {
      if (project.is_active || values.all) projects.push(project);
    }
    if (ctx.json) {
      ctx.printJson({ projects, total_count: projects.length });
      return EXIT.ok;
    }
    const rows = projects.map((p) => [
      p.id,
      `${p.file_count} files`,
      formatBytes(p.total_size_bytes),
      `${p.name}${p.is_default ? ' (default)' : ''}${p.is_active ? '' : ' (deleted)'}`,
    ]);
    if (rows.length > 0) ctx.out(table(rows));
    return EXIT.ok;
  },
};

export const projectsCreate: Command = {
  name: 'projects create',
  usage: 'mdstore projects create NAME [--description TEXT] [--json]',
  summary: 'creates a project',
  options: { description: { type: 'string' } },
  positionals: [1, 1],
  async run(ctx, [name], values) {
    const client = await ctx.client();
    const description = values.description as string | undefined;
    const project = await client.projects.create({
      name: name!,
      ...(description !== undefined && { description }),
    });
    if (ctx.json) ctx.printJson(project);
    else ctx.out(`created project ${project.name} (${project.id})`);
    return EXIT.ok;
  },
};
