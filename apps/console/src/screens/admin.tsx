import type { Key, KeyCreate, Webhook } from '@mdstore/client';
import { useState } from 'preact/hooks';
import { errorText, type Me, sdk, unless } from '../api';
import { useLoad } from '../use-load';

/**
 * The body of Create Key from the form: folders as written, comma-separated (none: every file), and
 * an expiry date (none: never; a date alone expires at the end of that day, UTC).
 */
export function keyBody(o: { name: string; role: string; folders: string; expires: string }): KeyCreate {
  const folders = o.folders
    .split(',')
    .map((folder) => folder.trim())
    .filter((folder) => folder !== '');
  return {
    name: o.name,
    // The form's choices are the roles; the server refuses any other value.
    role: o.role as KeyCreate['role'],
    ...(folders.length > 0 && { path_prefixes: folders }),
    ...(o.expires !== '' && { expires_date: `${o.expires}T23:59:59Z` }),
  };
}

/** Keys and webhooks of the account: admin keys only (the links are not shown to others). */
export function AdminScreen({ me, view }: { me: Me; view: 'keys' | 'webhooks' }) {
  if (me.role !== 'admin') return <p>Only an admin key manages {view}.</p>;
  return view === 'keys' ? <KeysPanel me={me} /> : <WebhooksPanel />;
}

function KeysPanel({ me }: { me: Me }) {
  const { data, error, reload } = useLoad((signal) => sdk().access.listKeys({ signal }), []);
  const [secret, setSecret] = useState<string | null>(null);
  const [status, setStatus] = useState('');
  const create = async (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const name = (form.elements.namedItem('name') as HTMLInputElement).value;
    const role = (form.elements.namedItem('role') as HTMLSelectElement).value;
    const folders = (form.elements.namedItem('folders') as HTMLInputElement).value;
    const expires = (form.elements.namedItem('expires') as HTMLInputElement).value;
    try {
      const created = await sdk().access.createKey(keyBody({ name, role, folders, expires }));
      setSecret(created.api_key);
      form.reset();
      reload();
    } catch (caught) {
      setStatus(errorText(caught));
    }
  };
  const revoke = async (key: Key) => {
    try {
      await sdk().access.revokeKey(key.id);
      reload();
    } catch (caught) {
      setStatus(errorText(caught));
    }
  };
  return (
    <section aria-labelledby="keys-title">
      <h1 id="keys-title">API keys</h1>
      {error && <p role="alert">{error}</p>}
      <table class="list">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Role</th>
            <th scope="col">Projects</th>
            <th scope="col">Folders</th>
            <th scope="col">Expires</th>
            <th scope="col">Last used</th>
            <th scope="col">Action</th>
          </tr>
        </thead>
        <tbody>
          {data?.map((key) => (
            <tr key={key.id}>
              <td>
                {key.name}
                {key.id === me.id && ' (this key)'}
              </td>
              <td>{key.role}</td>
              <td>{key.project_ids === null ? 'all' : key.project_ids.length}</td>
              <td>{key.path_prefixes ? key.path_prefixes.join(', ') : 'all'}</td>
              <td>{key.expires_date ? new Date(key.expires_date).toLocaleString() : 'never'}</td>
              <td>{key.last_used_date ? new Date(key.last_used_date).toLocaleString() : '–'}</td>
              <td>
                <button type="button" onClick={() => revoke(key)}>
                  Revoke {key.name}
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <form class="inline" onSubmit={create}>
        <label for="key-name">New key name</label>
        <input id="key-name" name="name" required />
        <label for="key-role">Role</label>
        <select id="key-role" name="role">
          <option value="read">read</option>
          <option value="propose">propose</option>
          <option value="write">write</option>
          <option value="admin">admin</option>
        </select>
        <label for="key-folders">Folders (optional)</label>
        <input id="key-folders" name="folders" placeholder="memories/, notes/" />
        <label for="key-expires">Expires (optional)</label>
        <input id="key-expires" name="expires" type="date" />
        <button type="submit">Create key</button>
      </form>
      {secret && (
        <p role="status">
          The new key (shown only now): <code class="secret">{secret}</code>
        </p>
      )}
      <p role="status">{status}</p>
    </section>
  );
}

function WebhooksPanel() {
  const { data, reload } = useLoad((signal) => unless(sdk().webhooks.list({ signal }), null, 404, 405), []);
  const [status, setStatus] = useState('');
  const [secret, setSecret] = useState<string | null>(null);
  const create = async (event: Event) => {
    event.preventDefault();
    const url = ((event.currentTarget as HTMLFormElement).elements.namedItem('url') as HTMLInputElement)
      .value;
    try {
      const created = await sdk().webhooks.create({ url });
      setSecret(created.secret);
      reload();
    } catch (caught) {
      setStatus(errorText(caught));
    }
  };
  const enable = async (hook: Webhook) => {
    try {
      await sdk().webhooks.enable(hook.id);
      reload();
    } catch (caught) {
      setStatus(errorText(caught));
    }
  };
  const remove = async (hook: Webhook) => {
    try {
      await sdk().webhooks.delete(hook.id);
      reload();
    } catch (caught) {
      setStatus(errorText(caught));
    }
  };
  return (
    <section aria-labelledby="webhooks-title">
      <h1 id="webhooks-title">Webhooks</h1>
      {data === null && <p>This server does not offer webhooks.</p>}
      {data && (
        <>
          <ul>
            {data.map((hook) => (
              <li key={hook.id}>
                {hook.url} · {hook.events.join(', ')} · {hook.active ? 'active' : 'disabled'}{' '}
                {!hook.active && (
                  <button type="button" onClick={() => enable(hook)}>
                    Enable webhook {hook.url}
                  </button>
                )}{' '}
                <button type="button" onClick={() => remove(hook)}>
                  Delete webhook {hook.url}
                </button>
              </li>
            ))}
          </ul>
          <form class="inline" onSubmit={create}>
            <label for="hook-url">Webhook URL</label>
            <input id="hook-url" name="url" type="url" required />
            <button type="submit">Create webhook</button>
          </form>
          {secret && (
            <p role="status">
              Signing secret (shown only now): <code class="secret">{secret}</code>
            </p>
          )}
        </>
      )}
      <p role="status">{status}</p>
    </section>
  );
}
