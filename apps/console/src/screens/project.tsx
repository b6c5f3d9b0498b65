import { useState } from 'preact/hooks';
import { can, errorText, formatBytes, type Me, sdk } from '../api';
import { useLiveVersion } from '../live';
import { go, href } from '../route';
import { droppedFiles, type PendingFile, type UploadResult, uploadAll } from '../upload';
import { useLoad } from '../use-load';
import { AttachmentsPanel } from './attachments';
import { RestorePanel } from './restore';

export const loadProject = (projectId: string, signal?: AbortSignal) =>
  sdk().projects.get(projectId, signal ? { signal } : {});

/** A project's page in `main`: its counters, where to go, and (for write keys) create and upload. */
export function ProjectHome({ me, projectId, dir }: { me: Me; projectId: string; dir: string }) {
  const live = useLiveVersion(projectId);
  const { data: project, error } = useLoad((signal) => loadProject(projectId, signal), [projectId, live]);
  return (
    <section aria-labelledby="project-title">
      <h1 id="project-title">{project?.name ?? 'Project'}</h1>
      {error && <p role="alert">{error}</p>}
      {project && (
        <dl class="counters">
          <dt>Files</dt>
          <dd>{project.file_count}</dd>
          <dt>Size</dt>
          <dd>{formatBytes(project.total_size_bytes)}</dd>
          {project.history_size_bytes !== undefined && (
            <>
              <dt>History</dt>
              <dd>{formatBytes(project.history_size_bytes)}</dd>
            </>
          )}
          {project.trash_size_bytes !== undefined && (
            <>
              <dt>Trash</dt>
              <dd>{formatBytes(project.trash_size_bytes)}</dd>
            </>
          )}
        </dl>
      )}
      <ProjectLinks me={me} projectId={projectId} />
      {dir && <p>Folder: {dir}</p>}
      {can(me, 'write') && <CreateFile projectId={projectId} dir={dir} />}
      {can(me, 'write') && <DropZone projectId={projectId} dir={dir} />}
      <AttachmentsPanel me={me} projectId={projectId} dir={dir} />
      {me.role === 'admin' && !dir && <RestorePanel projectId={projectId} />}
    </section>
  );
}

export function ProjectLinks({ me, projectId }: { me: Me; projectId: string }) {
  return (
    <ul class="links" aria-label="Project pages">
      <li>
        <a href={href.search(projectId)}>Search</a>
      </li>
      <li>
        <a href={href.drafts(projectId)}>Drafts</a>
      </li>
      <li>
        <a href={href.trash(projectId)}>Trash</a>
      </li>
      {can(me, 'write') && (
        <li>
          <a href={href.settings(projectId)}>Settings</a>
        </li>
      )}
      {me.role === 'admin' && (
        <li>
          <a href={href.shares(projectId)}>Shares</a>
        </li>
      )}
    </ul>
  );
}

/**
 * The name a new file gets from what was typed: as typed with `.md`/`.mdx`, with `.md` added when it
 * has no extension; a name with another extension (`notes.txt`) is not guessed: the console asks
 * whether `notes.txt.md` is meant (issue 37).
 */
export function newFileName(typed: string): { name: string } | { ask: string } {
  const name = typed.trim();
  if (/\.mdx?$/i.test(name)) return { name };
  const base = name.slice(name.lastIndexOf('/') + 1);
  return /\.[^.]+$/.test(base) && !base.startsWith('.') ? { ask: `${name}.md` } : { name: `${name}.md` };
}

function CreateFile({ projectId, dir }: { projectId: string; dir: string }) {
  const [error, setError] = useState<string | null>(null);
  const [asking, setAsking] = useState<string | null>(null);
  const submit = async (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const typed = (form.elements.namedItem('name') as HTMLInputElement).value;
    const judged = newFileName(typed);
    if ('ask' in judged) {
      setAsking(judged.ask);
      return;
    }
    await create(judged.name);
  };
  const create = async (name: string) => {
    setAsking(null);
    const filename = dir + name;
    const title = name
      .replace(/\.mdx?$/i, '')
      .split('/')
      .pop();
    try {
      await sdk().files.upload(projectId, filename, `# ${title}\n`);
      go(href.file(projectId, filename));
    } catch (caught) {
      setError(errorText(caught));
    }
  };
  return (
    <form class="inline" onSubmit={submit}>
      <label for="new-file">New file name</label>
      <input id="new-file" name="name" required placeholder="notes.md" />
      <button type="submit">Create file</button>
      {asking && (
        <p role="status">
          Files here are Markdown (.md or .mdx).{' '}
          <button type="button" onClick={() => create(asking)}>
            Create {asking}
          </button>{' '}
          or change the name.
        </p>
      )}
      {error && <p role="alert">{error}</p>}
    </form>
  );
}

/** Upload by drag-and-drop (files and folders) or by picking files. */
function DropZone({ projectId, dir }: { projectId: string; dir: string }) {
  const [over, setOver] = useState(false);
  const [status, setStatus] = useState<string>('');
  const [result, setResult] = useState<UploadResult | null>(null);
  const send = async (files: PendingFile[]) => {
    setStatus(`Uploading ${files.length} file(s)…`);
    const done = await uploadAll(projectId, dir, files);
    setResult(done);
    setStatus(
      `Uploaded ${done.uploaded.length} file(s)${done.failed.length ? `, ${done.failed.length} refused` : ''}.`,
    );
  };
  return (
    <section
      class={`drop ${over ? 'over' : ''}`}
      aria-labelledby="drop-title"
      onDragOver={(e) => {
        e.preventDefault();
        setOver(true);
      }}
      onDragLeave={() => setOver(false)}
      onDrop={(e) => {
        e.preventDefault();
        setOver(false);
        if (e.dataTransfer) void droppedFiles(e.dataTransfer).then(send);
      }}
    >
      <h2 id="drop-title">Upload</h2>
      <p>Drop Markdown files or folders here{dir ? ` (into ${dir})` : ''}, or pick files:</p>
      <label>
        Choose files to upload
        <input
          type="file"
          multiple
          accept=".md,.mdx"
          onChange={(e) => {
            const input = e.currentTarget as HTMLInputElement;
            void send([...(input.files ?? [])].map((file) => ({ file, path: file.name })));
          }}
        />
      </label>
      <p role="status">{status}</p>
      {result && result.failed.length > 0 && (
        <ul>
          {result.failed.map((f) => (
            <li key={f.name}>
              {f.name}: {f.detail}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
