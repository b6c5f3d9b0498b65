import fc from 'fast-check';
import { describe, expect } from 'vitest';
import { call, expectHealthy, type HostileContext, hostileTest } from '../hostile/support.js';
import { multipartBody } from '../support/http-harness.js';

const test = hostileTest();

interface Victim {
  readonly key: string;
  readonly projectIds: readonly string[];
  /** Secrets that must never appear in a response to the attacker. */
  readonly secrets: readonly string[];
}

/** The victim's projects, files, metadata and contents, as the victim sees them. */
async function snapshot(ctx: HostileContext, victim: Victim): Promise<string> {
  const parts: string[] = [(await call(ctx, '/api/projects', { key: victim.key })).text];
  for (const id of victim.projectIds) {
    const files = await call(ctx, `/api/projects/${id}/files`, { key: victim.key });
    parts.push(files.text);
    for (const file of (JSON.parse(files.text) as { files: Array<{ filename: string }> }).files) {
      parts.push(
        (
          await call(ctx, `/api/projects/${id}/files/${encodeURIComponent(file.filename)}`, {
            key: victim.key,
          })
        ).text,
      );
    }
  }
  return parts.join('\n');
}

async function createVictim(ctx: HostileContext): Promise<Victim> {
  const victim = await ctx.h.account('victim');
  const other = await ctx.h.createProject(victim.apiKey, 'victim-private-project', 'victim description');
  const token = Math.random().toString(36).slice(2, 12);
  const secrets = [
    `VICTIMCONTENT${token}`,
    `VICTIMMETA${token}`,
    'victim-private-project',
    'victim description',
  ];
  for (const projectId of [victim.defaultProjectId, other.id]) {
    for (const filename of ['secret.md', 'notes.mdx']) {
      await ctx.h.uploadFile(victim.apiKey, projectId, filename, `# ${secrets[0]}`, { marker: secrets[1] });
    }
  }
  return { key: victim.apiKey, projectIds: [victim.defaultProjectId, other.id], secrets };
}

/** One request an attacker might try on the victim's resources. */
const attack = (victim: Victim) =>
  fc.record({
    projectId: fc.constantFrom(...victim.projectIds, ...victim.projectIds.map((id) => id.toUpperCase())),
    filename: fc.oneof(
      fc.constantFrom('secret.md', 'notes.mdx', 'Secret.md', 'missing.md', 'secret.md/', 'secret.md%00'),
      fc.string({ minLength: 1, maxLength: 12 }).map((name) => `${name}.md`),
    ),
    route: fc.constantFrom('project', 'files', 'file', 'content'),
    method: fc.constantFrom('GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH'),
    body: fc.oneof(
      fc.constant({ kind: 'none' as const }),
      fc.record({ kind: fc.constant('json' as const), value: fc.jsonValue({ maxDepth: 3 }) }),
      fc.record({
        kind: fc.constant('update' as const),
        name: fc.string({ maxLength: 20 }),
        metadata: fc.dictionary(fc.string({ maxLength: 5 }), fc.jsonValue({ maxDepth: 2 })),
      }),
      fc.record({ kind: fc.constant('upload' as const), filename: fc.constantFrom('secret.md', 'new.md') }),
      fc.record({ kind: fc.constant('markdown' as const), text: fc.string({ minLength: 1, maxLength: 40 }) }),
    ),
  });

type Attack = ReturnType<typeof attack> extends fc.Arbitrary<infer T> ? T : never;

function requestOf(input: Attack): { path: string; init: RequestInit } {
  const project = `/api/projects/${input.projectId}`;
  const file = `${project}/files/${encodeURIComponent(input.filename)}`;
  const path = { project, files: `${project}/files`, file, content: `${file}/content` }[input.route];
  if (input.method === 'GET' || input.method === 'HEAD' || input.body.kind === 'none') {
    return { path, init: { method: input.method } };
  }
  const json = (value: unknown) => ({
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(value),
  });
  const body = input.body;
  if (body.kind === 'json') return { path, init: { method: input.method, ...json(body.value) } };
  if (body.kind === 'update') {
    return { path, init: { method: input.method, ...json({ name: body.name, metadata: body.metadata }) } };
  }
  if (body.kind === 'upload') {
    const form = multipartBody([{ name: 'file', filename: body.filename, data: '# attacker' }]);
    return {
      path,
      init: { method: input.method, headers: { 'Content-Type': form.contentType }, body: form.body },
    };
  }
  return {
    path,
    init: { method: input.method, headers: { 'Content-Type': 'text/markdown' }, body: body.text },
  };
}

describe('isolation between accounts', () => {
  test('another account never succeeds on, nor sees, the projects and files of a victim', async (ctx) => {
    const victim = await createVictim(ctx);
    const before = await snapshot(ctx, victim);
    const attacker = ctx.account.apiKey;
    const statuses = new Set<number>();

    await fc.assert(
      fc.asyncProperty(attack(victim), async (input) => {
        const { path, init } = requestOf(input);
        const response = await call(ctx, path, { ...init, key: attacker });
        statuses.add(response.status);
        expect(response.status, `${init.method} ${path}`).toBeGreaterThanOrEqual(400);
        expect([403, 404, 405, 422]).toContain(response.status);
        for (const secret of victim.secrets) expect(response.text).not.toContain(secret);
        for (const [name, value] of response.headers) {
          for (const secret of victim.secrets) expect(`${name}: ${value}`).not.toContain(secret);
        }
      }),
      { numRuns: 250 },
    );

    // The attacker's own listing shows none of the victim's projects.
    const own = await call(ctx, '/api/projects', { key: attacker });
    expect(own.status).toBe(200);
    for (const id of victim.projectIds) expect(own.text).not.toContain(id);
    for (const secret of victim.secrets) expect(own.text).not.toContain(secret);

    expect(await snapshot(ctx, victim)).toBe(before);
    // Ownership is what refused the attacker (not only routing).
    expect(statuses.has(403)).toBe(true);
    await expectHealthy(ctx);
  }, 60_000);

  test("another account's project is 403 before its body is judged (no 400/413/415 first)", async (ctx) => {
    const victim = await ctx.h.account('victim');
    const missing = '00000000-0000-4000-8000-000000000000';
    for (const [projectId, expected] of [
      [victim.defaultProjectId, 403],
      [missing, 404],
    ] as const) {
      const project = `/api/projects/${projectId}`;
      const attempts: Array<[string, RequestInit]> = [
        [project, { method: 'PUT', headers: { 'Content-Type': 'text/plain' }, body: 'x' }],
        [project, { method: 'PUT', headers: { 'Content-Type': 'application/json' }, body: '{bad json' }],
        [
          project,
          {
            method: 'PUT',
            headers: { 'Content-Type': 'application/json' },
            body: `{"name":"${'n'.repeat(2 * 1024 * 1024)}"}`,
          },
        ],
        [`${project}/files`, { method: 'POST', headers: { 'Content-Type': 'text/plain' }, body: 'x' }],
        [
          `${project}/files/secret.md`,
          { method: 'PUT', headers: { 'Content-Type': 'text/plain' }, body: '{}' },
        ],
        [
          `${project}/files/secret.md/content`,
          { method: 'PUT', headers: { 'Content-Type': 'image/png' }, body: 'x' },
        ],
      ];
      for (const [path, init] of attempts) {
        const response = await call(ctx, path, init);
        expect(response.status, `${init.method} ${path}`).toBe(expected);
      }
    }
    await expectHealthy(ctx);
  });
});
