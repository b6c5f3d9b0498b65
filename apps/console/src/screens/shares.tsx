import type { Share } from '@mdstore/client';
import { useState } from 'preact/hooks';
import { errorText, type Me, sdk, unless } from '../api';
import { useLoad } from '../use-load';

/**
 * Share links of a project (admin, extensions §11). On a server without them (`404` on the listing)
 * the screen says so and offers nothing.
 */
export function SharesPanel({ projectId }: { me: Me; projectId: string }) {
  const { data, reload } = useLoad(
    (signal) => unless(sdk().shares.list(projectId, { signal }), null, 404, 405),
    [projectId],
  );
  const [status, setStatus] = useState('');
  const [created, setCreated] = useState<string | null>(null);
  const create = async (event: Event) => {
    event.preventDefault();
    const target = (
      (event.currentTarget as HTMLFormElement).elements.namedItem('target') as HTMLInputElement
    ).value.trim();
    try {
      const created = await sdk().shares.create(
        projectId,
        target.endsWith('/') ? { prefix: target } : { filename: target },
      );
      setCreated(created.url ?? null);
      reload();
    } catch (caught) {
      setStatus(errorText(caught));
    }
  };
  const revoke = async (share: Share) => {
    try {
      await sdk().shares.revoke(projectId, share.id);
      reload();
    } catch (caught) {
      setStatus(errorText(caught));
    }
  };
  return (
    <section aria-labelledby="shares-title">
      <h1 id="shares-title">Share links</h1>
      {data === null && <p>This server does not offer share links.</p>}
      {data && (
        <>
          <ul>
            {data.map((share) => (
              <li key={share.id}>
                {share.filename ?? share.prefix} · expires {new Date(share.expires_date).toLocaleString()}{' '}
                <button type="button" onClick={() => revoke(share)}>
                  Revoke share of {share.filename ?? share.prefix}
                </button>
              </li>
            ))}
          </ul>
          <form class="inline" onSubmit={create}>
            <label for="share-target">File or folder/ to share</label>
            <input id="share-target" name="target" required />
            <button type="submit">Create share link</button>
          </form>
          {created && (
            <p role="status">
              New link (shown only now): <a href={created}>{created}</a>
            </p>
          )}
        </>
      )}
      <p role="status">{status}</p>
    </section>
  );
}

/** The expiries offered when sharing a file (the server's bounds are 60 s to 30 days; 7 days by default). */
export const SHARE_EXPIRIES: readonly { readonly label: string; readonly seconds: number }[] = [
  { label: '1 hour', seconds: 3_600 },
  { label: '1 day', seconds: 86_400 },
  { label: '7 days', seconds: 604_800 },
  { label: '30 days', seconds: 2_592_000 },
];

/**
 * "Share" on a file (admin, extensions §11, issue 37): a link to this file that expires after the chosen
 * time, shown once with a button that copies it.
 */
export function ShareFile({ projectId, filename }: { projectId: string; filename: string }) {
  const [link, setLink] = useState<string | null>(null);
  const [status, setStatus] = useState('');
  const share = async (event: Event) => {
    event.preventDefault();
    const seconds = Number(
      ((event.currentTarget as HTMLFormElement).elements.namedItem('expires') as HTMLSelectElement).value,
    );
    try {
      const created = await sdk().shares.create(projectId, { filename, expires_in_seconds: seconds });
      setLink(created.url ?? null);
      setStatus('');
    } catch (caught) {
      setStatus(errorText(caught));
    }
  };
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(link ?? '');
      setStatus('Link copied.');
    } catch {
      setStatus('Could not copy: select the link and copy it.');
    }
  };
  return (
    <form class="inline" onSubmit={share} aria-label="Share this file">
      <label for="share-expires">Link expires after</label>
      <select id="share-expires" name="expires" defaultValue="604800">
        {SHARE_EXPIRIES.map((choice) => (
          <option key={choice.seconds} value={String(choice.seconds)}>
            {choice.label}
          </option>
        ))}
      </select>
      <button type="submit">Share</button>
      {link && (
        <p>
          Link (shown only now): <a href={link}>{link}</a>{' '}
          <button type="button" onClick={copy}>
            Copy link
          </button>
        </p>
      )}
      <p role="status">{status}</p>
    </form>
  );
}
