import type { Project, ProjectUpdate } from '@mdstore/client';
import { useState } from 'preact/hooks';
import { errorText, type Me, sdk } from '../api';
import { go, href } from '../route';
import { useLoad } from '../use-load';
import { loadProject } from './project';
import { SharesPanel } from './shares';

/** Name and description (write keys); settings and deletion (admin keys); shares (admin). */
export function SettingsScreen({
  me,
  projectId,
  view,
}: {
  me: Me;
  projectId: string;
  view: 'settings' | 'shares';
}) {
  const { data: project, error, reload } = useLoad((signal) => loadProject(projectId, signal), [projectId]);
  if (view === 'shares') return <SharesPanel me={me} projectId={projectId} />;
  return (
    <section aria-labelledby="settings-title">
      <h1 id="settings-title">Project settings</h1>
      {error && <p role="alert">{error}</p>}
      {project && <SettingsForm key={project.id} me={me} project={project} onSaved={reload} />}
      {project && me.role === 'admin' && !project.is_default && <DeleteProject project={project} />}
    </section>
  );
}

function SettingsForm({ me, project, onSaved }: { me: Me; project: Project; onSaved: () => void }) {
  const [status, setStatus] = useState('');
  const admin = me.role === 'admin';
  const submit = async (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const field = (name: string) => form.elements.namedItem(name) as HTMLInputElement;
    const body: ProjectUpdate = {
      name: field('name').value,
      description: field('description').value || null,
    };
    if (admin && project.settings) {
      body.settings = {
        require_if_match: field('require_if_match').checked,
        keep_revisions: Number(field('keep_revisions').value),
        trash_retention_days: Number(field('trash_retention_days').value),
        // A server without it (older) has none to send back.
        ...(project.settings.keep_revisions_days !== undefined && {
          keep_revisions_days: Number(field('keep_revisions_days').value),
        }),
      };
    }
    try {
      await sdk().projects.update(project.id, body);
      setStatus('Saved.');
      onSaved();
    } catch (caught) {
      setStatus(`Not saved: ${errorText(caught)}`);
    }
  };
  return (
    <form class="stack" onSubmit={submit}>
      <label>
        Name
        <input name="name" required defaultValue={project.name} />
      </label>
      <label>
        Description
        <input name="description" defaultValue={project.description ?? ''} />
      </label>
      {admin && project.settings && (
        <fieldset>
          <legend>Settings</legend>
          <label>
            <input
              type="checkbox"
              name="require_if_match"
              defaultChecked={project.settings.require_if_match}
            />
            Require If-Match on writes
          </label>
          <label>
            Revisions kept per file
            <input
              name="keep_revisions"
              type="number"
              min={1}
              max={1000}
              defaultValue={String(project.settings.keep_revisions)}
            />
          </label>
          <label>
            Days deleted files stay in the trash
            <input
              name="trash_retention_days"
              type="number"
              min={0}
              max={365}
              defaultValue={String(project.settings.trash_retention_days)}
            />
          </label>
          {project.settings.keep_revisions_days !== undefined && (
            <label>
              Days revisions are kept beyond that count
              <input
                name="keep_revisions_days"
                type="number"
                min={0}
                max={3650}
                defaultValue={String(project.settings.keep_revisions_days)}
              />
            </label>
          )}
        </fieldset>
      )}
      <button type="submit">Save settings</button>
      <p role="status">{status}</p>
    </form>
  );
}

function DeleteProject({ project }: { project: Project }) {
  const [confirming, setConfirming] = useState(false);
  const [status, setStatus] = useState('');
  const remove = async () => {
    try {
      await sdk().projects.delete(project.id);
      go(href.projects());
    } catch (caught) {
      setStatus(errorText(caught));
    }
  };
  return (
    <section aria-labelledby="delete-project-title">
      <h2 id="delete-project-title">Delete the project</h2>
      {confirming ? (
        <button type="button" class="danger" onClick={remove}>
          Confirm: delete {project.name} and all its files
        </button>
      ) : (
        <button type="button" onClick={() => setConfirming(true)}>
          Delete project
        </button>
      )}
      <p role="status">{status}</p>
    </section>
  );
}
