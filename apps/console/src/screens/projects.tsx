import { useState } from 'preact/hooks';
import { can, errorText, formatBytes, type Me, sdk } from '../api';
import { useLiveVersion } from '../live';
import { go, href } from '../route';
import { useLoad } from '../use-load';

export const listProjects = (signal?: AbortSignal) =>
  sdk()
    .projects.list(signal ? { signal } : {})
    .then((a) => a.projects.filter((p) => p.is_active));

/** The projects, as the first `navigation` landmark. */
export function ProjectsNav({ current }: { me: Me; current: string | null }) {
  const live = useLiveVersion(null);
  const { data } = useLoad(listProjects, [live]);
  return (
    <nav aria-label="Projects" class="projects-nav">
      <h2>Projects</h2>
      <ul>
        {data?.map((project) => (
          <li key={project.id}>
            <a href={href.folder(project.id)} aria-current={project.id === current ? 'page' : undefined}>
              {project.name}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}

/** Every project with its counters, and a form to create one (write keys reaching the whole account). */
export function ProjectsScreen({ me }: { me: Me }) {
  const live = useLiveVersion(null);
  const { data, error, reload } = useLoad(listProjects, [live]);
  return (
    <section aria-labelledby="projects-title">
      <h1 id="projects-title">Projects</h1>
      {error && <p role="alert">{error}</p>}
      <table class="list">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Files</th>
            <th scope="col">Size</th>
            <th scope="col">Updated</th>
          </tr>
        </thead>
        <tbody>
          {data?.map((project) => (
            <tr key={project.id}>
              <td>
                <a href={href.folder(project.id)}>{project.name}</a>
                {project.description && <div class="muted">{project.description}</div>}
              </td>
              <td>{project.file_count}</td>
              <td>{formatBytes(project.total_size_bytes)}</td>
              <td>{new Date(project.updated_date).toLocaleString()}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {can(me, 'write') && me.project_ids === null && <CreateProject onCreated={reload} />}
    </section>
  );
}

function CreateProject({ onCreated }: { onCreated: () => void }) {
  const [error, setError] = useState<string | null>(null);
  const submit = async (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const name = (form.elements.namedItem('name') as HTMLInputElement).value;
    try {
      const project = await sdk().projects.create({ name });
      form.reset();
      setError(null);
      onCreated();
      go(href.folder(project.id));
    } catch (caught) {
      setError(errorText(caught));
    }
  };
  return (
    <form class="inline" onSubmit={submit}>
      <label for="new-project">New project name</label>
      <input id="new-project" name="name" required />
      <button type="submit">Create project</button>
      {error && <p role="alert">{error}</p>}
    </form>
  );
}
