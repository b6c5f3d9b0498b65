import { beforeEach, describe, expect, it } from 'vitest';
import { createClient, MdStoreApiError, type MdStoreClient } from '../src/index.js';
import { useRealServer } from './support/server.js';

let client: MdStoreClient;
let defaultProjectId: string;

const scene = useRealServer();
beforeEach(async () => {
  const { account } = scene;
  client = createClient({ baseUrl: scene.server.url, apiKey: account.apiKey });
  defaultProjectId = account.defaultProjectId;
});

describe('projects', () => {
  it('create, list, get, update, delete', async () => {
    const created = await client.projects.create({
      name: 'Notes',
      description: 'Team notes',
      settings: { keep_revisions: 5 },
    });
    expect(created).toMatchObject({
      name: 'Notes',
      description: 'Team notes',
      is_default: false,
      is_active: true,
      file_count: 0,
      settings: { keep_revisions: 5, require_if_match: false, trash_retention_days: 0 },
    });
    const list = await client.projects.list();
    expect(list.total_count).toBe(2);
    expect(list.projects.map((p) => p.name)).toEqual(['Default', 'Notes']);
    expect(await client.projects.get(created.id)).toEqual(created);
    const updated = await client.projects.update(
      created.id,
      { description: null },
      { ifMatch: created.etag },
    );
    expect(updated.description).toBeNull();
    expect(updated.etag).not.toBe(created.etag);
    const deleted = await client.projects.delete(created.id, { ifMatch: updated.etag });
    expect(deleted).toEqual({ message: 'Project deleted successfully', project_id: created.id });
    await expect(client.projects.get(created.id)).rejects.toMatchObject({
      status: 404,
      detail: 'Project not found',
    });
  });

  it('getDefault finds the account default project; it cannot be deleted (403)', async () => {
    const project = await client.projects.getDefault();
    expect(project.id).toBe(defaultProjectId);
    await expect(client.projects.delete(project.id)).rejects.toMatchObject({
      status: 403,
      detail: 'Cannot delete default project',
    });
  });

  it('getIfChanged is null while the copy is current', async () => {
    const project = await client.projects.create({ name: 'Cached' });
    expect(await client.projects.getIfChanged(project.id, project.etag)).toBeNull();
    const renamed = await client.projects.update(project.id, { name: 'Renamed' });
    expect(await client.projects.getIfChanged(project.id, project.etag)).toEqual(renamed);
  });

  it('a stale If-Match is a 412 and changes nothing', async () => {
    const project = await client.projects.create({ name: 'Guarded' });
    await client.projects.update(project.id, { description: 'first' });
    const error = await client.projects
      .update(project.id, { description: 'second' }, { ifMatch: project.etag })
      .catch((e) => e);
    expect(error).toBeInstanceOf(MdStoreApiError);
    expect(error.status).toBe(412);
    expect((await client.projects.get(project.id)).description).toBe('first');
  });

  it('validation problems come back as issues; a taken name is a 409', async () => {
    const invalid = await client.projects.create({ name: '' }).catch((e) => e);
    expect(invalid.status).toBe(422);
    expect(invalid.issues).toEqual([
      expect.objectContaining({ loc: ['body', 'name'], type: 'string_too_short' }),
    ]);
    expect(invalid.message).toContain('body.name');
    await client.projects.create({ name: 'Twice' });
    await expect(client.projects.create({ name: 'Twice' })).rejects.toMatchObject({
      status: 409,
      detail: "Project with name 'Twice' already exists",
    });
  });

  it('iterate yields every project', async () => {
    await client.projects.create({ name: 'P1' });
    const names: string[] = [];
    for await (const project of client.projects.iterate({ pageSize: 1 })) names.push(project.name);
    expect(names).toEqual(['Default', 'P1']);
  });

  it('health and readiness need no key', async () => {
    const anonymous = createClient({ baseUrl: scene.server.url });
    expect(await anonymous.health()).toEqual({ status: 'ok' });
    expect(await anonymous.ready()).toEqual({ status: 'ready' });
  });
});
