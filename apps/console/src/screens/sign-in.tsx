import { MdStoreApiError } from '@mdstore/client';
import { useEffect, useRef, useState } from 'preact/hooks';
import { errorText, type Me, setKey, whoAmI } from '../api';

/** The key field (labelled "API key", extensions §11); Enter signs in. */
export function SignIn({ onSignedIn }: { onSignedIn: (me: Me) => void }) {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const field = useRef<HTMLInputElement>(null);
  useEffect(() => field.current?.focus(), []);
  const submit = async (event: Event) => {
    event.preventDefault();
    const input = (event.currentTarget as HTMLFormElement).elements.namedItem('key') as HTMLInputElement;
    const key = input.value.trim();
    if (key === '') return setError('Enter an API key.');
    setBusy(true);
    setKey(key);
    try {
      onSignedIn(await whoAmI());
    } catch (caught) {
      setKey(null);
      setError(caught instanceof MdStoreApiError ? errorText(caught) : 'The server could not be reached.');
    } finally {
      setBusy(false);
    }
  };
  return (
    <main id="main" class="sign-in">
      <h1>mdstore console</h1>
      <form onSubmit={submit}>
        <label for="api-key">API key</label>
        <input id="api-key" name="key" type="password" autocomplete="off" spellcheck={false} ref={field} />
        <button type="submit" disabled={busy}>
          Sign in
        </button>
        {error && (
          <p role="alert" class="error">
            {error}
          </p>
        )}
        <p class="hint">The key is kept for this browser tab only.</p>
      </form>
    </main>
  );
}
